"""Tactical reading: Cazenave's ladder search (:mod:`.ladder`) and the policy adjustment it drives
(:mod:`.policy_adjust`, Cazenave 2016)."""
