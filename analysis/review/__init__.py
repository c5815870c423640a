"""Analysis for the web site and the JSON API, without Django: the position query
(:mod:`.query`), the search of a position and of a whole game (:mod:`.analyze`), what a game's
analysis says (:mod:`.report`: mistakes, the analysed SGF) and the networks a process loads once
(:mod:`.networks`)."""
