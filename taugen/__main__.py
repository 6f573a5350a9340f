"""``python3 -m taugen ...`` runs the command line (the same as the ``taugen`` script)."""

from taugen.cli import main

main()
