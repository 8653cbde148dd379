"""Words and pictures of a game: the log and tiles in words, text boards, SVG and PNG."""
