"""Command-line parsers whose errors are one line.

argparse answers a bad option with the whole usage text and then the error; with many
options that is a screenful in which the problem is the last line. Every `suburbia`
command (and the scripts it passes options to: train, bench) parses with
`ArgumentParser` from here, which prints one line naming the option and the problem, and
where the full usage is, then exits with status 2 (bad input).
"""

from __future__ import annotations

import argparse

MAX_ERROR_LENGTH = 400  # characters of the problem shown


class ArgumentParser(argparse.ArgumentParser):
    """argparse.ArgumentParser with a one-line error (module docstring); its sub-command
    parsers are of this class too."""

    def error(self, message: str):
        text = " ".join(str(message).split())
        if len(text) > MAX_ERROR_LENGTH:  # a pasted megabyte is named by its start
            text = text[:MAX_ERROR_LENGTH - 3] + "..."
        self.exit(2, f"{self.prog}: error: {text} (see {self.prog} --help)\n")
