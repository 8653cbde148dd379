"""The web app's refusal of a request: an HTTP status and a message saying why."""


class WebError(Exception):
    """A request the server refuses; `status` is the HTTP status, the message says why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
