"""`python -m mdmem`: the `mdmem` command (the gate runs `python -m mdmem check`)."""

from mdmem.commands import main

main()
