"""python3 -m collx: see cli.py."""
from collx.cli import main

main()
