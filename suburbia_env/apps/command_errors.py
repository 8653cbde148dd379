"""The errors of the `suburbia` command and its exit statuses (docs/reference.md).

Their own module, below both the command (cli.py) and the web server it starts
(web/server.py), which raises them: neither imports the other for them.
"""

EXIT_OS_ERROR = 1
"""A file or folder that cannot be read or written."""
EXIT_BAD_INPUT = 2
EXIT_MISSING_EXTRA = 3
"""A command needs an extra of pyproject.toml the install lacks."""
EXIT_PORT_TAKEN = 4
EXIT_INTERNAL_ERROR = 70


class CliError(Exception):
    """A command that cannot run as asked; main prints it and exits with status 2."""


class PortTakenError(CliError):
    """`suburbia serve` on a port another program listens on: status 4, said before the
    server announces anything."""
