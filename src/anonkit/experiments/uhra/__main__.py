"""``python -m anonkit.experiments.uhra``: the command line of paper A's experiment."""

from anonkit.experiments.uhra import main

if __name__ == "__main__":
    raise SystemExit(main())
