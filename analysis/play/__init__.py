"""Choosing moves: a simple rule-based player until the neural networks land, and end-of-game status."""
