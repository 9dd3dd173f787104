from kari.cli import main

main()
