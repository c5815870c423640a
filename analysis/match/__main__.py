"""``python -m analysis.match``: see :mod:`analysis.match.run`."""

from analysis.match.run import main

main()
