"""Programs for people: the `suburbia` command, the terminal game and the web app."""
