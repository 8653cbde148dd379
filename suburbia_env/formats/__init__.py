"""Text forms of a game: the action notation, state files and game records."""
