"""Playing a game: a simple rule-based player, the end-of-game status of strings, and the game clock."""
