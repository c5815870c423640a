"""The match harness: two GTP engines play games against each other (``python -m analysis.match``).

:mod:`.engine` drives one engine process, :mod:`.game` plays and scores one game, :mod:`.run`
plays a match, :mod:`.log` keeps one JSON line per finished game (``python -m analysis.match.log``
sums logs up) and :mod:`.stats` summarises the results.
"""
