"""``python -m anonkit.cli``: the command line, as ``python -m anonkit`` runs it."""

from anonkit.cli import main

main()
