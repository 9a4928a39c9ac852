"""``python -m anonkit``: the console script's entry (Ctrl-C at any moment exits 130 with one line)."""

from anonkit._entry import main

main()
