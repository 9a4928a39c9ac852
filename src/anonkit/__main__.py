from anonkit.cli import main

main()
