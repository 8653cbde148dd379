"""Play, watch and replay Suburbia in a browser: `suburbia serve` (extra `[web]`).

Design
======

- **Thin server, rules in the engine.** The server turns `Game` calls into JSON views:
  `Game.legal_action_mask()` (through `legal_actions`) says which market tiles, basic
  tiles, cells, investments, discards and goals the page lights up; `Game.apply` plays;
  `describe_events` words the log; `Game.final_scores` breaks the scoring down. Neither
  the server nor the page's script knows a rule.
- **One drawing.** The board is `drawing.table_svg`, the same SVG that `suburbia render
  --svg/--png` writes and the `rgb_array` render mode rasterises. Its elements carry
  data attributes (`data-slot`, `data-basic`, `data-cell`) that the page's script makes
  clickable; tile effects on hover come from `tile_text` (words made once, in Python).
- **Hidden information (R10.2).** A person's seat is bound to a secret token handed only
  to the browser that created or joined it (header `X-Seat-Token`). A view is built for
  one viewer: the viewer's own drawn goals and private goal, nobody else's; the log says
  "keeps a private goal" for the others; the seed (which would tell the stacks) is shown
  only when the game is over or, to the creator alone, when he typed it; the stack order
  is never sent. Only when the game is over, or when nobody at the table is a person (a watched
  all-bot game), is everything shown and the plain state and record offered.
- **Seeds nobody can search for.** A seed the server picks has 64 bits from the
  operating system's secure generator (`rng.secret_seed`): the first market and the
  public goals, which any watcher sees, single out a seed of 31 bits in minutes, and
  with it every hidden fact. Every redraw (undo, load) takes fresh secret words
  (`rng.secret_words`), kept with the game so that it replays exactly. Seeds travel as
  decimal text in the views and as typed (a JavaScript number is exact to 2**53 only).
  The other seats are told the truth about the setup (`origin`, `seed_note`): a random
  seed, a seed the creator chose, or a position the creator loaded: in the last two the
  creator may know the hidden stacks and goals.
- **Saving.** The state JSON (`Game.to_json()`) holds the stack order and every goal,
  so "save" gives the browser a *sealed* file (sealing.py): the state, how the game was
  set up and the decisions taken, encrypted and authenticated (Fernet) with a key kept
  in the user's configuration folder, in a JSON envelope naming its format and version.
  Only this server opens it again; a changed or foreign file is refused. A game of
  several people is saved once it is over (a sealed file loaded by one of them would
  show him the others' goals). Loading an unfinished save shows the same table but deals
  what its person cannot see anew (R10.2), as an undo does: saving, peeking at what
  follows and loading again tells nothing of the tiles to come. Plain states
  (`suburbia-state`, continued as they are: whoever loads one has read it) and records
  (`suburbia-record`, opened as replays) load too.
- **Bots off the request path.** Each game with an agent has a worker thread; the agent
  thinks on a copy of the game and its answer is applied only if nothing changed
  meanwhile. The page follows by long polling and shows a bot's waiting (the chosen
  pace), loading and thinking time as such. Clicks answer within 100 ms.
- **Undo** (one person against bots) sets the game up again from its seed, or from the
  loaded state, and replays the decisions before the person's last one; then what the
  person cannot see is dealt anew (`Game.redraw_hidden`, R10.2), since the tiles drawn
  after the move taken back have been seen, from fresh secret words, never words derived
  from the seed. Such a game replays on the server (seed, decisions and redraw words)
  but has no seed-and-moves record file.
- **Kept across restarts.** Every game and replay is a row of a SQLite file (database.py),
  written as each decision, undo or bots' setting is made: the setup (seed or loaded
  state), seats and tokens, decisions, undo redraw words. A restarted server rebuilds a
  game by replaying that record when it is asked for, so a server killed at any moment
  resumes every game at its last answered move, links unchanged. Only the games in use
  live in memory (`Limits.max_resident`); the file is private (0600): it holds seeds.
- **Bounds.** Unguessable ids and tokens; pydantic bodies (unknown fields refused,
  strict types); request bodies of at most 1 MiB; at most 20 games and replays per client
  address, 60 per /24 (IPv4) or /64 (IPv6) network and 10,000 in all, a full server
  making room at the expense of the network holding the most (`Store.check_room`); 32
  open long polls per client address (429 beyond); X-Forwarded-For believed only from a
  configured proxy; 5,000 decisions per record; a drawing cached per viewer of the
  current position only, a replay keeping every 16th position; games not played for a
  week deleted by a sweep on a timer (reading does not renew them); no agent spec that
  loads code (FILE.py:NAME, MODULE:NAME).
- **Hygiene** (http_guards.py, agent_specs.py). Only requests naming this server in Host
  (DNS rebinding) and, when they change something, coming from its own pages (Origin);
  no framing, no sniffing, the page's own script only (CSP). Only a game's creator
  deletes it, only a replay's maker; a move names the version it was decided on. Models
  only from the served folders, named FOLDER/FILE, a missing path and a refused one
  answered alike; a spec is checked when its seat is made (search agents: at most 64
  trials per decision); no answer shows the server's absolute paths.
- **The log in words.** Each decision is told in words (`render.describe_action`) with
  its notation beside it, and its events in words (`describe_events(words=True)`).
"""

from .app import Settings, create_app

__all__ = ["Settings", "create_app"]
