"""The API's routes, by job: the page (pages.py), games (games.py), loading a file
(loading.py) and replays (replays.py). Each module's `router(context)` gives an
APIRouter over the parts of the app they share (context.py)."""
