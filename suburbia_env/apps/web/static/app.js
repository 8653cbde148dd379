// The page of `suburbia serve`. It knows no rule: what is legal comes from the server
// (the engine's mask, grouped by slot / basic tile / cell), the board is the server's SVG
// (drawing.py) and every effect text comes from /api/tiles (tile_text.py).
"use strict";

const $ = (id) => document.getElementById(id);
const S = {
  tiles: [], options: null, gen: 0,
  game: null, token: null, version: -1, log: [], selection: null, view: null,
  replay: null, step: 0, autoplay: null, clickStart: null, received: 0, errorFrom: null,
  review: null, marked: null,
};
window.suburbiaTimings = [];
window.suburbia = S;  // read by the browser tests

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (ch) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[ch]));
}

function say(text, error = false, from = "action") {
  // The top bar's message. An error is said to come from a person's action or from the
  // page's own polling; a later success of the same kind (any action for an action's
  // error) clears it, so that no error outlives what it was about.
  const box = $("message");
  box.textContent = text || "";
  box.className = error ? "error" : "";
  S.errorFrom = error ? from : null;
}

function succeeded(from) {
  if (S.errorFrom !== null && (from === "action" || S.errorFrom === from)) say("");
}

async function apiText(method, url, body, from = "action") {
  // The answer's text as sent: a seed of 64 bits in a record or state stays exact (a
  // JavaScript number holds 2**53); `body` is an object or JSON text sent as it is.
  const headers = {};
  if (S.token) headers["X-Seat-Token"] = S.token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const sent = body === undefined || typeof body === "string" ? body : JSON.stringify(body);
  const response = await fetch(url, {method, headers, body: sent});
  const text = await response.text();
  if (!response.ok) {
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = {error: text}; }
    const error = new Error((data && data.error) || `${response.status} ${response.statusText}`);
    error.status = response.status;
    throw error;
  }
  succeeded(from);
  return text;
}

async function api(method, url, body, from = "action") {
  const text = await apiText(method, url, body, from);
  return text ? JSON.parse(text) : null;
}

function download(name, text) {
  const blob = new Blob([text], {type: name.endsWith(".csv") ? "text/csv" : "application/json"});
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.appendChild(link);
  link.click();
  setTimeout(() => { URL.revokeObjectURL(link.href); link.remove(); }, 1000);
}

function tokenKey(id) { return "suburbia.token." + id; }

// Routing ------------------------------------------------------------------------------------

function show(section) {
  for (const name of ["home", "game", "replay"]) $(name).hidden = name !== section;
}

async function route() {
  S.gen += 1;
  stopAutoplay();
  const parts = location.hash.replace(/^#\/?/, "").split("/");
  if (parts[0] === "game" && parts[1]) {
    if (parts[2] === "join" && parts[3]) {
      localStorage.setItem(tokenKey(parts[1]), parts[3]);
      history.replaceState(null, "", "#/game/" + parts[1]);
    }
    return openGame(parts[1]);
  }
  if (parts[0] === "replay" && parts[1]) return openReplay(parts[1]);
  show("home");
}

// New game -----------------------------------------------------------------------------------

function currentMode() { return document.querySelector("input[name=mode]:checked").value; }

function agentOptions(mode) {
  const specs = (S.options && S.options.agents) || ["greedy", "dale", "random"];
  return specs;  // an agent that cannot play a mode is refused by the server, with the reason
}

function buildSeatRows() {
  const mode = currentMode();
  $("players-row").hidden = mode !== "standard";
  const players = mode === "standard" ? Number($("players").value) : 1;
  const box = $("seats");
  const old = [...box.querySelectorAll(".seat-row")].map((row) => ({
    kind: row.querySelector("select.kind").value, agent: row.querySelector("input.agent").value}));
  box.innerHTML = "<legend>Seats</legend>";
  for (let seat = 0; seat < players; seat++) {
    const previous = old[seat] || {kind: seat === 0 ? "person" : "agent", agent: "greedy"};
    const row = document.createElement("div");
    row.className = "seat-row";
    row.dataset.seat = seat;
    const list = agentOptions(mode).map((spec) => `<option value="${escapeHtml(spec)}"></option>`).join("");
    row.innerHTML = `<span>Player ${seat}</span>
      <select class="kind"><option value="person">a person</option><option value="agent">an agent</option></select>
      <input class="agent" type="text" list="agents-${seat}" value="${escapeHtml(previous.agent)}" placeholder="agent spec, e.g. greedy">
      <datalist id="agents-${seat}">${list}</datalist>`;
    row.querySelector("select.kind").value = previous.kind;
    const input = row.querySelector("input.agent");
    input.hidden = previous.kind !== "agent";
    row.querySelector("select.kind").addEventListener("change", (e) => { input.hidden = e.target.value !== "agent"; });
    box.appendChild(row);
  }
  if (mode === "dale") {
    const note = document.createElement("p");
    note.className = "hint";
    note.textContent = "Dale takes the second seat: the engine plays him (R9.2).";
    box.appendChild(note);
  }
}

async function startGame(event) {
  event.preventDefault();
  const form = $("new-game");
  const mode = currentMode();
  const players = mode === "standard" ? Number($("players").value) : 1;
  const seats = [...document.querySelectorAll("#seats .seat-row")].map((row) => {
    const kind = row.querySelector("select.kind").value;
    return kind === "person" ? {kind} : {kind, agent: row.querySelector("input.agent").value.trim()};
  });
  const seedText = $("seed").value.trim();
  const body = {mode, players, edition: form.elements.edition.value, seats,
                delay_ms: Number($("delay").value), hints: $("hints-option").checked};
  if (seedText) {
    if (!/^\d{1,20}$/.test(seedText)) { say("The seed is a whole number (or empty for a random one).", true); return; }
    body.seed = seedText;  // as text: exact up to 2**64 - 1
  }
  try {
    const answer = await api("POST", "/api/games", body);
    enterGame(answer);
  } catch (error) { say(error.message, true); }
}

function enterGame(answer) {
  if (answer.kind === "replay") { location.hash = "#/replay/" + answer.id; return; }
  localStorage.setItem(tokenKey(answer.id), answer.token);
  sessionStorage.setItem("suburbia.join." + answer.id, JSON.stringify(answer.join || {}));
  say("");
  location.hash = "#/game/" + answer.id;
}

async function openFile(event) {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  const text = await file.text();
  try { JSON.parse(text); } catch (e) { say(`${file.name} is not a JSON file.`, true); return; }
  const previous = S.token;
  try {
    S.token = null;  // a file is loaded by nobody's seat
    const answer = await api("POST", "/api/load", `{"file": ${text}}`);  // its seed exact
    S.token = previous;
    enterGame(answer);
  } catch (error) { S.token = previous; say(error.message, true); }
}

// Game -----------------------------------------------------------------------------------------

async function openGame(id) {
  show("game");
  S.game = id; S.token = localStorage.getItem(tokenKey(id)); S.version = -1; S.log = [];
  S.selection = null; S.view = null;
  $("log").innerHTML = "";
  const gen = S.gen;
  try {
    render(await api("GET", `/api/games/${id}`));
  } catch (error) { say(error.message, true); return; }
  pollLoop(gen);
}

async function pollLoop(gen) {
  while (gen === S.gen) {
    try {
      const view = await api("GET", `/api/games/${S.game}?since_version=${S.version}&log_since=${logHeld()}`, undefined, "poll");
      if (gen !== S.gen) return;
      render(view);
    } catch (error) {
      if (gen !== S.gen) return;
      say(error.message, true, "poll");
      if (error.status === 404) return;
      await new Promise((r) => setTimeout(r, 1500));
    }
  }
}

function logHeld() { return S.log.length ? S.log[S.log.length - 1].n : 0; }

function mergeLog(view) {
  // A view carries log entries log_from+1 .. log_total (an undo may have shortened the log).
  // An answer to an older request (a long poll woken by our own undo) can start past what
  // we hold: fetch the missing entries then. When the server sent only its last entries
  // for the very request, the older ones are dropped from the page.
  const held = logHeld();
  if (view.log_from > held && view.log_since !== held) { fillLog(); return false; }
  const kept = view.log_from > held ? [] : S.log.filter((entry) => entry.n <= view.log_from);
  const changed = view.log.length > 0 || kept.length !== S.log.length;
  S.log = kept.concat(view.log);
  return changed;
}

async function fillLog() {
  try { render(await api("GET", `/api/games/${S.game}?log_since=${logHeld()}`, undefined, "poll")); }
  catch (error) { say(error.message, true, "poll"); }
}

function tileOf(kind) { return S.tiles[Number(kind)]; }

function render(view) {
  if (view.version < S.version) return;
  const changed = view.version !== S.version;
  S.view = view; S.version = view.version; S.received = performance.now();
  if (changed) {
    $("board").innerHTML = view.svg;
    if (!view.legal) S.selection = null;
  }
  if (mergeLog(view)) renderLog();
  renderStatus();
  renderDecision();
  markBoard();
  renderScores();
  renderTools();
  if (S.clickStart !== null) {
    const ms = performance.now() - S.clickStart;
    S.clickStart = null;
    window.suburbiaTimings.push(ms);
    $("timing").textContent = `last click answered in ${Math.round(ms)} ms`;
  }
}

function seatLabel(seat) {
  const found = S.view.seats.find((s) => s.seat === seat);
  return found ? found.label + (found.you ? " (you)" : "") : `Player ${seat}`;
}

function renderStatus() {
  const v = S.view;
  const box = $("status");
  const bots = v.bots;
  let html;
  if (v.over) {
    html = `<span class="who">Game over.</span> Winner: ${escapeHtml(v.scores.winners.join(", "))}`;
  } else if (v.legal) {
    html = `<span class="yours">Your decision</span> (round ${v.round})`;
  } else {
    html = `Round ${v.round}: <span class="who">${escapeHtml(seatLabel(v.current))}</span> decides`;
  }
  if (!v.over && bots.thinking) {
    const t = bots.thinking;
    const secs = ((t.elapsed_ms + performance.now() - S.received) / 1000).toFixed(1);
    const what = {waiting: `moves soon (pace ${bots.delay_ms} ms)`, loading: "is loading its model", thinking: "is thinking"}[t.phase];
    html += `<div class="thinking" id="thinking">${escapeHtml(t.label)} ${what}… ${secs} s</div>`;
  }
  if (bots.error) html += `<div class="error">${escapeHtml(bots.error)}</div>`;
  box.innerHTML = html;
}

setInterval(() => { if (S.view && !$("game").hidden && S.view.bots && S.view.bots.thinking) renderStatus(); }, 200);

function marketRow(slot) { return S.view.market.find((row) => row.slot === Number(slot)); }

function renderDecision() {
  const v = S.view;
  const box = $("decision");
  const legal = v.legal;
  if (!legal) {
    box.innerHTML = v.over ? "" : `<span class="hint">${v.you === null ? "You are watching." : "Wait for your turn."}</span>`;
    if (v.private_goal) box.innerHTML += goalLine(v.private_goal);
    return;
  }
  let html = "";
  if (v.decision === "keep_goal") {
    html = "<h2>Keep one of your two goals (R3.6)</h2><div class='decision-buttons'>";
    v.goal_options.forEach((goal, option) => {
      const number = legal.keep[String(option)];
      if (number === undefined) return;
      html += `<button data-action="${number}" class="goal-choice"><b>Keep ${escapeHtml(goal.name)}</b>${escapeHtml(goal.criterion)} (+${goal.private_bonus} population)</button>`;
    });
    html += "</div>";
  } else if (v.decision === "discard" || v.decision === "remove") {
    const verb = v.decision === "discard" ? "Discard" : "Remove";
    html = `<h2>${verb} a market tile, paying its slot's premium</h2><div class='decision-buttons'>`;
    for (const [slot, number] of Object.entries(legal[v.decision])) {
      const row = marketRow(slot);
      html += `<button data-action="${number}">${verb} ${escapeHtml(row ? row.tile : "slot " + slot)} (slot ${slot}, pay $${row ? row.premium : "?"})</button>`;
    }
    html += "</div><p class='hint'>or click a lit market tile.</p>";
  } else {
    const sel = S.selection;
    if (!sel) {
      html = "<h2>Your turn</h2><p>Click a lit market tile to buy it (or take it as a lake), or a basic tile of the supply.</p><div class='decision-buttons'>";
      if (Object.keys(legal.invest).length) html += `<button id="choose-invest">Invest in one of your tiles…</button>`;
      if (legal.pass !== null) html += `<button data-action="${legal.pass}">Pass (nothing is affordable and placeable)</button>`;
      html += "</div>";
    } else {
      let what = "";
      if (sel.verb === "buy" || sel.verb === "lake") {
        const row = marketRow(sel.slot);
        what = sel.verb === "buy" ? `Buy ${escapeHtml(row.tile)} for $${row.price}` : `Lake from ${escapeHtml(row.tile)}: pay the premium $${row.premium}`;
      } else if (sel.verb === "basic") {
        const kind = document.querySelector(`#board g.basic[data-basic="${sel.basic}"]`).dataset.kind;
        what = `Buy ${escapeHtml(tileOf(kind).name)} for $${tileOf(kind).cost}, then discard a market tile`;
      } else {
        what = "Invest: pay a tile's cost again, its effects count twice (R7.3); then discard a market tile";
      }
      html = `<h2>${what}</h2><p>Click a lit ${sel.verb === "invest" ? "tile" : "cell"} of your borough.</p><div class='decision-buttons'>`;
      if (sel.verb === "buy" && legal.lake[String(sel.slot)]) html += `<button id="as-lake">Take it as a lake instead</button>`;
      if (sel.verb === "lake" && legal.buy[String(sel.slot)]) html += `<button id="as-buy">Buy it instead</button>`;
      html += `<button id="cancel">Cancel</button></div>`;
    }
  }
  if (v.private_goal) html += goalLine(v.private_goal);
  box.innerHTML = html;
}

function goalLine(goal) {
  return `<p class="hint">Your private goal: <b>${escapeHtml(goal.name)}</b>: ${escapeHtml(goal.criterion)} (+${goal.private_bonus})</p>`;
}

function cellsOfSelection() {
  const legal = S.view.legal;
  const sel = S.selection;
  if (!legal || !sel) return {};
  if (sel.verb === "invest") return legal.invest;
  if (sel.verb === "basic") return legal.basic[String(sel.basic)] || {};
  return legal[sel.verb][String(sel.slot)] || {};
}

function markBoard() {
  const v = S.view;
  const board = $("board");
  board.querySelectorAll(".selectable, .selected, .legal").forEach((el) => el.classList.remove("selectable", "selected", "legal"));
  const legal = v.legal;
  if (!legal) return;
  if (v.decision === "turn") {
    for (const slot of new Set([...Object.keys(legal.buy), ...Object.keys(legal.lake)])) {
      const el = board.querySelector(`g.slot[data-slot="${slot}"]`);
      if (el) el.classList.add("selectable");
    }
    for (const basic of Object.keys(legal.basic)) {
      const el = board.querySelector(`g.basic[data-basic="${basic}"]`);
      if (el) el.classList.add("selectable");
    }
  } else if (v.decision === "discard" || v.decision === "remove") {
    for (const slot of Object.keys(legal[v.decision])) {
      const el = board.querySelector(`g.slot[data-slot="${slot}"]`);
      if (el) el.classList.add("selectable");
    }
  }
  const sel = S.selection;
  if (sel && sel.slot !== undefined) {
    const el = board.querySelector(`g.slot[data-slot="${sel.slot}"]`);
    if (el) el.classList.add("selected");
  }
  if (sel && sel.basic !== undefined) {
    const el = board.querySelector(`g.basic[data-basic="${sel.basic}"]`);
    if (el) el.classList.add("selected");
  }
  for (const cell of Object.keys(cellsOfSelection())) {
    const el = board.querySelector(`g.cell[data-seat="${v.you}"][data-cell="${cell}"]`);
    if (el) el.classList.add("legal");
  }
  drawHint();
}

function hintedMove(number) {
  // Where the server's grouping of the legal actions (views.legal_choices) puts an action
  // number: its verb, the market slot or basic tile it takes, the cell it goes to.
  const legal = S.view.legal;
  for (const verb of ["buy", "lake", "basic"]) {
    for (const [source, cells] of Object.entries(legal[verb])) {
      for (const [cell, n] of Object.entries(cells)) if (n === number) return {verb, source, cell};
    }
  }
  for (const [cell, n] of Object.entries(legal.invest)) if (n === number) return {verb: "invest", cell};
  for (const verb of ["discard", "remove"]) {
    for (const [source, n] of Object.entries(legal[verb])) if (n === number) return {verb, source};
  }
  for (const [option, n] of Object.entries(legal.keep)) if (n === number) return {verb: "keep", option};
  return legal.pass === number ? {verb: "pass"} : null;
}

function drawGhost(board, seat, cell, label, className) {
  // A would-be tile over a borough cell: dashed, see-through, marked "hint" or "better",
  // so that it is never taken for a tile of the borough; clicks go through it.
  const target = board.querySelector(`g.cell[data-seat="${seat}"][data-cell="${cell}"]`);
  if (!target) return null;
  const svgNs = "http://www.w3.org/2000/svg";
  const box = target.getBBox();
  const ghost = document.createElementNS(svgNs, "g");
  ghost.setAttribute("class", `ghost ${className}`);
  ghost.dataset.seat = String(seat);
  ghost.dataset.cell = String(cell);
  const shape = target.querySelector("polygon");
  if (shape) {
    const outline = document.createElementNS(svgNs, "polygon");
    outline.setAttribute("points", shape.getAttribute("points"));
    ghost.appendChild(outline);
  }
  const [tag, ...words] = label;
  [tag, ...words].forEach((line, index) => {
    const text = document.createElementNS(svgNs, "text");
    text.setAttribute("x", String(box.x + box.width / 2));
    text.setAttribute("y", String(box.y + box.height / 2 - 6 * words.length + 13 * index));
    text.setAttribute("text-anchor", "middle");
    text.setAttribute("class", index === 0 ? "ghost-tag" : "ghost-name");
    text.textContent = line;
    ghost.appendChild(text);
  });
  target.parentNode.appendChild(ghost);  // drawn over every tile of the borough
  return ghost;
}

function moveLabel(verb, kind, cellTile) {
  if (verb === "lake") return "Lake";
  if (verb === "invest") return `invest: ${cellTile}`;
  return kind !== null && tileOf(kind) ? tileOf(kind).name : "";
}

function drawHint() {
  // The hinted move on the board: the market card or basic tile it takes, and the tile as
  // it would lie on its cell (a ghost); gone once the person has decided.
  const board = $("board");
  board.querySelectorAll(".ghost.hinted").forEach((el) => el.remove());
  board.querySelectorAll(".hint-source, .hint-target").forEach((el) => el.classList.remove("hint-source", "hint-target"));
  document.querySelectorAll("#decision .hint-choice").forEach((el) => el.classList.remove("hint-choice"));
  const v = S.view;
  if (!S.hint || S.hint.at !== v.log_total || v.over || !v.legal || !S.hint.answer.moves.length) return;
  const number = S.hint.answer.moves[0].action;
  const move = hintedMove(number);
  if (!move) return;
  let kind = null;
  if (move.source !== undefined) {
    const selector = move.verb === "basic" ? `g.basic[data-basic="${move.source}"]` : `g.slot[data-slot="${move.source}"]`;
    const source = board.querySelector(selector);
    if (source) { source.classList.add("hint-source"); kind = Number(source.dataset.kind); }
  }
  if (move.cell !== undefined) {
    const target = board.querySelector(`g.cell[data-seat="${v.you}"][data-cell="${move.cell}"]`);
    if (target) target.classList.add("hint-target");
    const lying = target && target.dataset.kind !== undefined ? tileOf(target.dataset.kind) : null;
    drawGhost(board, v.you, move.cell, ["hint", moveLabel(move.verb, kind, lying ? lying.name : "")], "hinted");
  }
  const button = document.querySelector(`#decision button[data-action="${number}"]`);
  if (button) button.classList.add("hint-choice");
}

function select(selection) {
  S.selection = selection;
  renderDecision();
  markBoard();
}

async function play(number) {
  S.clickStart = performance.now();
  try {
    const view = await api("POST", `/api/games/${S.game}/actions?log_since=${logHeld()}`, {action: Number(number), version: S.version});
    S.selection = null;
    render(view);
  } catch (error) {
    S.clickStart = null;
    say(error.message, true);
  }
}

function onBoardClick(event) {
  const v = S.view;
  if (!v || !v.legal) return;
  const legal = v.legal;
  const cell = event.target.closest("g.cell.legal");
  if (cell) {
    const number = cellsOfSelection()[cell.dataset.cell];
    if (number !== undefined) play(number);
    return;
  }
  const slot = event.target.closest("g.slot.selectable");
  if (slot) {
    const key = slot.dataset.slot;
    if (v.decision === "discard" || v.decision === "remove") { play(legal[v.decision][key]); return; }
    select(legal.buy[key] ? {verb: "buy", slot: Number(key)} : {verb: "lake", slot: Number(key)});
    return;
  }
  const basic = event.target.closest("g.basic.selectable");
  if (basic) select({verb: "basic", basic: Number(basic.dataset.basic)});
}

function onDecisionClick(event) {
  const button = event.target.closest("button");
  if (!button) return;
  if (button.dataset.action !== undefined) { play(button.dataset.action); return; }
  if (button.id === "choose-invest") select({verb: "invest"});
  if (button.id === "cancel") select(null);
  if (button.id === "as-lake") select({verb: "lake", slot: S.selection.slot});
  if (button.id === "as-buy") select({verb: "buy", slot: S.selection.slot});
}

function renderLog() {
  const list = $("log");
  list.innerHTML = S.log.map((e) => `<li value="${e.n}"><span class="act">Round ${e.round}, ${escapeHtml(e.who)} ${escapeHtml(e.action)}</span> <span class="notation">${escapeHtml(e.notation)}</span><ul>${e.lines.map((l) => `<li>${escapeHtml(l)}</li>`).join("")}</ul></li>`).join("");
  list.scrollTop = list.scrollHeight;
}

function scoresTable(scores) {
  // one column per seat, one row per part of the score (R8.2)
  const rows = scores.rows;
  const head = rows.map((r) => `<th class="${r.winner ? "winner" : ""}">${escapeHtml(r.label)}${r.winner ? " ★" : ""}</th>`).join("");
  const line = (name, cells, cls = "") => `<tr class="${cls}"><td>${name}</td>${cells.map((c) => `<td>${c}</td>`).join("")}</tr>`;
  let html = `<h2>Final scoring (R8.2)</h2><table class="scores"><tr><th></th>${head}</tr>`;
  html += line("population", rows.map((r) => r.population_before_goals));
  for (const goal of scores.public_goals) html += line(`goal ${escapeHtml(goal)}`, rows.map((r) => `+${r.public_goals[goal] ?? 0}`));
  if (rows.some((r) => r.private_goal)) html += line("private goal", rows.map((r) => r.private_goal ? `${escapeHtml(r.private_goal)} +${r.private_goal_bonus}` : "—"));
  html += line("money ÷ 5", rows.map((r) => `+${r.money_converted}`));
  html += line("<b>final</b>", rows.map((r) => `<b>${r.population}</b>`), "final");
  html += line("money kept", rows.map((r) => `$${r.money_left}`));
  html += line("reputation · income", rows.map((r) => `${r.reputation} · ${r.income}`));
  html += "</table>";
  if (scores.solo_rank) html += `<p>Solo ladder rank (R9.1): <b>${escapeHtml(scores.solo_rank)}</b></p>`;
  if (scores.note) html += `<p class="hint">${escapeHtml(scores.note)}</p>`;
  html += `<p class="hint">Ties: reputation, then income, then money (R8.3).</p>`;
  return html;
}

function renderScores() {
  const box = $("scores");
  box.hidden = !S.view.scores;
  $("game").classList.toggle("over", Boolean(S.view.scores));
  if (S.view.scores) box.innerHTML = scoresTable(S.view.scores) + hintsUsedLine(S.view);
}

function hintsUsedLine(v) {
  if (!v.hints || !v.hints.on) return "";
  const used = Object.entries(v.hints.used).map(([seat, count]) => {
    const label = v.seats.find((s) => String(s.seat) === seat)?.label ?? `Player ${seat}`;
    return `${escapeHtml(label)}: ${count}`;
  });
  return `<p id="hints-used">Hints used: ${used.join(", ")}</p>`;
}

function renderHint() {
  // The hint box belongs to one decision: hidden once the game has moved on.
  const v = S.view;
  $("hint").hidden = !v.hints || !v.hints.can_ask;
  $("hint").disabled = Boolean(v.hints && v.hints.running);
  if (!S.hint || S.hint.at !== v.log_total || v.over) $("hint-box").hidden = true;
}

async function askHint() {
  const at = S.view.log_total;
  $("hint").disabled = true;
  $("hint-box").hidden = false;
  $("hint-box").innerHTML = `<p class="hint">The search is thinking about your move...</p>`;
  try {
    const answer = await api("POST", `/api/games/${S.game}/hint`);
    S.hint = {at, answer};
    drawHint();
    const rows = answer.moves.map((m, i) =>
      `<tr class="${i === 0 ? "best" : ""}"><td>${i === 0 ? "Best" : "or"}</td><td>${escapeHtml(m.words)}</td>` +
      `<td>${Math.round(m.win_probability * 100)}%</td><td>${m.margin >= 0 ? "+" : ""}${m.margin.toFixed(1)}</td></tr>`).join("");
    $("hint-box").innerHTML = `<h2>Hint</h2><table class="hint-moves"><tr><th></th><th>move</th><th>win</th><th>margin</th></tr>${rows}</table>` +
      `<p class="hint">From what you can see only: the hidden stacks and goals redrawn ${answer.samples} times. Hints used: ${answer.used}.</p>`;
  } catch (error) {
    S.hint = null;
    $("hint-box").hidden = true;
    say(error.message, true);
  } finally { $("hint").disabled = false; }
}

function renderTools() {
  const v = S.view;
  $("undo").hidden = !v.can_undo;
  renderHint();
  $("save").hidden = !v.can_save || v.over;
  $("download-record").hidden = !v.can_download || !v.has_record;
  $("download-state").hidden = !v.can_download;
  $("to-replay").hidden = !v.over;
  $("bots").hidden = !v.bots.present || v.over;
  $("bot-pause").textContent = v.bots.paused ? "Resume" : "Pause";
  $("bot-step").hidden = !v.bots.paused;
  $("bot-skip").textContent = v.you === null ? "Skip to the end" : "Skip to my turn";
  $("bot-delay").value = String(v.bots.delay_ms);
  $("seed-line").textContent = v.seed !== null ? `Seed ${v.seed} · ${v.mode} · edition ${v.edition}` : `Seed: ${v.seed_note}`;
  const join = JSON.parse(sessionStorage.getItem("suburbia.join." + S.game) || "{}");
  const links = Object.entries(join);
  $("join").hidden = !links.length;
  $("join").innerHTML = links.length ? "<h2>Invite the other people</h2>" + links.map(([seat, token]) =>
    `<div>Player ${seat}: <input readonly size="34" value="${escapeHtml(location.origin + "/#/game/" + S.game + "/join/" + token)}"></div>`).join("") : "";
}

async function botControl(body) {
  try { await api("POST", `/api/games/${S.game}/bots`, body); } catch (error) { say(error.message, true); }
}

async function undo() {
  S.clickStart = performance.now();
  try { S.selection = null; S.version = -1; render(await api("POST", `/api/games/${S.game}/undo`)); say("Your last move was taken back."); }
  catch (error) { S.clickStart = null; say(error.message, true); }
}

async function save() {
  try {
    const response = await fetch(`/api/games/${S.game}/save`, {method: "POST", headers: {"X-Seat-Token": S.token}});
    const text = await response.text();
    if (!response.ok) throw new Error(JSON.parse(text).error);
    download("suburbia-game.sealed.json", text);
    say("Saved: a sealed file only this server can open (it hides the stacks and goals).");
  } catch (error) { say(error.message, true); }
}

async function downloadPlain(what) {
  try {
    download(`suburbia-${what}.json`, await apiText("GET", `/api/games/${S.game}/${what}`));
  } catch (error) { say(error.message, true); }
}

async function toReplay() {
  try { const answer = await api("POST", `/api/games/${S.game}/replay`); location.hash = "#/replay/" + answer.id; }
  catch (error) { say(error.message, true); }
}

// Tiles on hover ---------------------------------------------------------------------------------

function onHover(event, boxId) {
  const el = event.target.closest("[data-kind]");
  if (!el || !S.tiles.length) return;
  const kind = Number(el.dataset.kind);
  if (kind < 0) return;
  const tile = tileOf(kind);
  if (!tile) return;
  const invested = el.classList.contains("invested") ? "<li>An investment marker: its effects count twice (R7.3).</li>" : "";
  const where = el.dataset.col !== undefined ? ` at ${el.dataset.col},${el.dataset.row}` : "";
  const facts = tile.type === "lake" ? "lake" : `${tile.type}${tile.icon ? ", " + tile.icon + " icon" : ""}, cost $${tile.cost}, stack ${tile.stack}`;
  $(boxId).innerHTML = `<div class="name">${escapeHtml(tile.name)}${escapeHtml(where)}</div><div class="hint">${escapeHtml(facts)}</div><ul>${tile.effects.map((e) => `<li>${escapeHtml(e)}</li>`).join("")}${invested}</ul>`;
}

// Replay -----------------------------------------------------------------------------------------

async function openReplay(id) {
  show("replay");
  S.replay = id;
  S.review = null;
  S.marked = null;
  $("r-review-start").disabled = false;
  $("r-review-status").textContent = "";
  $("r-chart-box").hidden = true;
  $("r-review-files").hidden = true;
  for (const part of ["r-legend", "r-mistakes", "r-better", "r-eval"]) $(part).innerHTML = "";
  $("r-eval").hidden = true;
  await showStep(0);
}

async function showStep(step) {
  const start = performance.now();
  try {
    const view = await api("GET", `/api/replays/${S.replay}?step=${step}`);
    S.step = view.step;
    $("replay-board").innerHTML = view.svg;
    $("r-slider").max = view.total;
    $("r-slider").value = view.step;
    $("r-position").textContent = `Step ${view.step} of ${view.total} · round ${view.round}`;
    const rounds = $("r-round");
    if (rounds.options.length !== view.rounds.length) {
      rounds.innerHTML = view.rounds.map((r) => `<option value="${r.step}">${r.round}</option>`).join("");
    }
    const current = view.rounds.filter((r) => r.step <= Math.max(0, view.step - 1)).pop();
    if (current) rounds.value = String(current.step);
    $("r-download").hidden = !view.has_record;
    const info = view.this_step;
    $("r-step").innerHTML = info
      ? `<h2 id="r-action">Step ${info.n}: round ${info.round}, ${escapeHtml(info.who)} ${escapeHtml(info.action)}</h2><p class="notation">${escapeHtml(info.notation)}</p><ul>${info.lines.map((l) => `<li>${escapeHtml(l)}</li>`).join("")}</ul>`
      : `<h2 id="r-action">The setup (${escapeHtml(view.mode)}, ${view.players} player(s), edition ${escapeHtml(view.edition)}, ${view.seed === null ? "from a loaded state" : `seed ${view.seed}`})</h2>` +
        (view.next_step ? `<p class="hint">Next: ${escapeHtml(view.next_step.who)} ${escapeHtml(view.next_step.action)}</p>` : "");
    $("r-scores").hidden = !view.scores;
    $("replay").classList.toggle("over", Boolean(view.scores));
    if (view.scores) $("r-scores").innerHTML = scoresTable(view.scores);
    $("r-review").hidden = !view.has_record;  // the server says when a game is unfinished
    markMoves();
    renderEvaluation();
    const ms = performance.now() - start;
    window.suburbiaTimings.push(ms);
    $("timing").textContent = `last step answered in ${Math.round(ms)} ms`;
    if (S.autoplay && view.step >= view.total) stopAutoplay();
  } catch (error) { say(error.message, true); stopAutoplay(); }
}

// Review: the search's evaluation of every decision of a finished game (docs/review.md) ------

// drawing.py's SEAT_COLOURS and their names: a seat's line has its colour on the board
const SEAT_COLOURS = ["#d84315", "#6a1b9a", "#00838f", "#558b2f"];
const SEAT_COLOUR_NAMES = ["orange", "purple", "teal", "green"];

async function startReview() {
  const replay = S.replay;
  const seed = $("r-review-seed").value.trim();
  if (seed && !/^\d{1,20}$/.test(seed)) {
    say("The redraw seed is a whole number from 0 to 2^64 - 1 (or empty for a random one).", true);
    return;
  }
  $("r-review-start").disabled = true;
  try {
    const query = seed ? `?seed=${seed}` : "";
    let answer = await api("POST", `/api/replays/${replay}/review${query}`);
    while (answer.status === "queued" || answer.status === "running") {
      const last = answer.progress[answer.progress.length - 1];
      $("r-review-status").textContent = "Reviewing: " + (last || "waiting for the search");
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (S.replay !== replay) return;
      answer = await api("GET", `/api/replays/${replay}/review`, undefined, "poll");
    }
    if (S.replay !== replay) return;
    if (answer.status !== "done") throw new Error(answer.error || "the review failed");
    showReview(answer);
  } catch (error) {
    say(error.message, true);
    $("r-review-start").disabled = false;
  }
}

function chartSvg(review) {
  // Each seat's win probability after every decision, the actual result last; circles
  // mark each seat's biggest mistakes (the page's copy of win_probability.png).
  const decisions = review.decisions;
  const seats = review.result.final_scores.length;
  const width = 300, height = 130, left = 22, right = 4, top = 4, bottom = 14;
  const x = (i) => left + (width - left - right) * i / Math.max(1, decisions.length);
  const y = (p) => top + (height - top - bottom) * (1 - p);
  const parts = [`<line x1="${left}" y1="${y(0.5)}" x2="${width - right}" y2="${y(0.5)}" stroke="#ccc" stroke-dasharray="3 3"/>`];
  for (const p of [0, 0.5, 1]) parts.push(`<text x="${left - 3}" y="${y(p) + 3}" font-size="8" text-anchor="end">${p}</text>`);
  parts.push(`<text x="${(left + width) / 2}" y="${height - 2}" font-size="8" text-anchor="middle">decision (last: the result)</text>`);
  const winners = review.result.winners;
  for (let seat = 0; seat < seats; seat++) {
    const values = decisions.map((d) => d.seat_win_probabilities[seat]);
    values.push(winners.includes(seat) ? 1 / winners.length : 0);
    const points = values.map((p, i) => `${x(i).toFixed(1)},${y(p).toFixed(1)}`).join(" ");
    parts.push(`<polyline class="seat-line" data-seat="${seat}" points="${points}" fill="none" stroke="${SEAT_COLOURS[seat]}" stroke-width="1.4"/>`);
  }
  for (const [seat, indexes] of Object.entries(S.review.mistakes)) {
    for (const i of indexes) {
      parts.push(`<circle class="mistake-dot" data-decision="${i}" cx="${x(i).toFixed(1)}" cy="${y(decisions[i].seat_win_probabilities[Number(seat)]).toFixed(1)}" r="3" fill="none" stroke="${SEAT_COLOURS[Number(seat)]}"/>`);
    }
  }
  return parts.join("");
}

function showReview(answer) {
  S.review = answer;
  const review = answer.review;
  $("r-review-status").textContent =
    `Knowledge: ${review.knowledge}. Redraw seed ${answer.redraw_seed} (give it to review the same way again).`;
  $("r-review-files").hidden = false;
  $("r-chart").innerHTML = chartSvg(review);
  $("r-chart-box").hidden = false;
  const seats = review.result.final_scores.length;
  $("r-legend").innerHTML = Array.from({length: seats}, (_, seat) =>
    `<span class="legend" data-seat="${seat}">${seat === 1 && review.record.config.mode === "dale" ? "Dale" : "Seat " + seat}: ${SEAT_COLOUR_NAMES[seat]}</span>`).join(" · ");
  const items = [];
  for (const [seat, indexes] of Object.entries(answer.mistakes)) {
    for (const i of indexes) {
      const d = review.decisions[i];
      items.push(`<li><button class="mistake" data-decision="${i}">Seat ${seat}, round ${d.round}: played ${escapeHtml(d.move)}; better ${escapeHtml(d.best_move)} (win ${d.win_probability_played.toFixed(2)} → ${d.win_probability_best.toFixed(2)})</button></li>`);
    }
  }
  $("r-mistakes").innerHTML = items.join("") || "<li>Every move was the search's best.</li>";
  renderEvaluation();
}

function renderEvaluation() {
  // The review's evaluation of the decision taken at the step shown (every decision, not
  // only the mistakes): the move played and the search's best with their win probability
  // and margin, what the difference costs, and the policy's top moves.
  const box = $("r-eval");
  const d = S.review ? S.review.review.decisions[S.step] : undefined;
  box.hidden = !d;
  if (!d) { box.innerHTML = ""; return; }
  box.dataset.decision = String(d.decision);
  const percent = (p) => `${(100 * p).toFixed(1)}%`;
  const signed = (x) => `${x >= 0 ? "+" : ""}${x.toFixed(1)}`;
  const row = (what, move, win, margin, extra) =>
    `<tr><th>${what}</th><td class="move">${escapeHtml(move)}</td><td class="win">${percent(win)}</td><td class="margin">${signed(margin)}</td><td>${extra}</td></tr>`;
  const cost = d.played_is_best ? "the search's best move was played"
    : `it cost ${percent(d.cost_win_probability)} of win probability and ${d.cost_margin.toFixed(1)} of margin`;
  box.innerHTML = `<h3>Decision ${d.decision}: round ${d.round}, seat ${d.seat} (${d.legal_moves} legal moves)</h3>` +
    `<table class="evaluation"><tr><th></th><th>move</th><th>win</th><th>margin</th><th>policy</th></tr>` +
    row("played", d.move, d.win_probability_played, d.margin_played, `${percent(d.policy_probability)} (rank ${d.policy_rank})`) +
    row("best", d.best_move, d.win_probability_best, d.margin_best, "") + `</table>` +
    `<p class="cost">${escapeHtml(cost)}.</p>` +
    `<p class="policy-top">The policy's top moves: ${d.policy_top.map((top) => `${escapeHtml(top.move)} (${percent(top.probability)})`).join(", ")}</p>`;
}

async function showMistake(event) {
  const button = event.target.closest("button.mistake, circle.mistake-dot");
  if (!button || !S.review) return;
  const i = Number(button.dataset.decision);
  const d = S.review.review.decisions[i];
  S.marked = d;
  $("r-better").textContent = `Before decision ${i} (round ${d.round}), seat ${d.seat} played ${d.move}: ` +
    `win probability ${d.win_probability_played.toFixed(2)}, margin ${d.margin_played.toFixed(1)}. ` +
    `The search's better move: ${d.best_move}: win probability ${d.win_probability_best.toFixed(2)}, ` +
    `margin ${d.margin_best.toFixed(1)} (drawn green on the board, the move played dashed red).`;
  await showStep(i);  // the position the decision was taken in
}

function markMoves() {
  // The better move's cell (green, with the tile it would place drawn over it as a ghost)
  // and the played move's (dashed red) on the deciding seat's borough, when the replay
  // shows the position of a mistake clicked.
  const d = S.marked;
  if (!d || S.step !== d.decision) return;
  const board = $("replay-board");
  for (const [move, name] of [[d.best_move, "better-move"], [d.move, "played-move"]]) {
    const at = /(?:@|^invest)\s*(-?\d+),(-?\d+)$/.exec(move);
    if (!at) continue;
    const cell = board.querySelector(
      `g.cell[data-seat="${d.seat}"][data-col="${at[1]}"][data-row="${at[2]}"]`);
    if (!cell) continue;
    cell.classList.add(name);
    if (name === "better-move") drawGhost(board, d.seat, cell.dataset.cell, ["better", notationTile(board, move, cell)], "better");
  }
}

function notationTile(board, move, cell) {
  // The tile a move in notation (buy/lake <slot>, basic <name>, invest) would place,
  // read off the replay's drawing of the position.
  const [verb, what] = move.split(/\s+/);
  if (verb === "lake") return "Lake";
  if (verb === "invest") return `invest: ${cell.dataset.kind !== undefined ? tileOf(cell.dataset.kind).name : ""}`;
  let source = null;
  if (verb === "buy") source = board.querySelector(`g.slot[data-slot="${what}"]`);
  if (verb === "basic") {
    source = [...board.querySelectorAll("g.basic")].find((el) => tileOf(el.dataset.kind).name.toLowerCase().includes(what));
  }
  if (source) source.classList.add("better-source");
  return source ? tileOf(source.dataset.kind).name : "";
}

function stopAutoplay() {
  if (S.autoplay) clearInterval(S.autoplay);
  S.autoplay = null;
  $("r-play").textContent = "Autoplay";
}

function toggleAutoplay() {
  if (S.autoplay) { stopAutoplay(); return; }
  $("r-play").textContent = "Stop";
  S.autoplay = setInterval(() => showStep(S.step + 1), Number($("r-speed").value));
}

// Board size: fitted to the window, or the drawing's natural size (scrolled) ----------------

function setZoom(natural) {
  for (const id of ["board", "replay-board"]) $(id).classList.toggle("natural", natural);
  $("zoom").textContent = natural ? "Board: fit the window" : "Board: actual size";
  localStorage.setItem("suburbia.zoom", natural ? "natural" : "fit");
}

// Wiring -----------------------------------------------------------------------------------------

async function init() {
  try {
    S.options = await api("GET", "/api/options");
    S.tiles = (await api("GET", "/api/tiles")).tiles;
  } catch (error) { say("The server does not answer: " + error.message, true); }
  $("delay").value = String((S.options && S.options.default_delay_ms) || 700);
  document.querySelectorAll("input[name=mode]").forEach((el) => el.addEventListener("change", buildSeatRows));
  $("players").addEventListener("change", buildSeatRows);
  buildSeatRows();
  setZoom(localStorage.getItem("suburbia.zoom") === "natural");
  $("zoom").addEventListener("click", () => setZoom(!$("board").classList.contains("natural")));
  $("new-game").addEventListener("submit", startGame);
  $("open-file").addEventListener("change", openFile);
  $("board").addEventListener("click", onBoardClick);
  $("board").addEventListener("mouseover", (e) => onHover(e, "tileinfo"));
  $("replay-board").addEventListener("mouseover", (e) => onHover(e, "r-tileinfo"));
  $("decision").addEventListener("click", onDecisionClick);
  $("undo").addEventListener("click", undo);
  $("hint").addEventListener("click", askHint);
  $("save").addEventListener("click", save);
  $("download-record").addEventListener("click", () => downloadPlain("record"));
  $("download-state").addEventListener("click", () => downloadPlain("state"));
  $("to-replay").addEventListener("click", toReplay);
  $("bot-pause").addEventListener("click", () => botControl({paused: !S.view.bots.paused}));
  $("bot-step").addEventListener("click", () => botControl({step: true}));
  $("bot-skip").addEventListener("click", () => botControl({skip: true}));
  $("bot-delay").addEventListener("change", (e) => botControl({delay_ms: Number(e.target.value)}));
  $("r-first").addEventListener("click", () => showStep(0));
  $("r-prev").addEventListener("click", () => showStep(Math.max(0, S.step - 1)));
  $("r-next").addEventListener("click", () => showStep(S.step + 1));
  $("r-last").addEventListener("click", () => showStep(Number($("r-slider").max)));
  $("r-play").addEventListener("click", toggleAutoplay);
  $("r-review-start").addEventListener("click", startReview);
  for (const name of ["json", "csv"]) {
    $(`r-review-${name}`).addEventListener("click", async () => {
      const file = `decisions.${name}`;
      try { download(file, await apiText("GET", `/api/replays/${S.replay}/review/${file}`)); }
      catch (error) { say(error.message, true); }
    });
  }
  $("r-mistakes").addEventListener("click", showMistake);
  $("r-chart").addEventListener("click", showMistake);
  $("r-slider").addEventListener("change", (e) => showStep(Number(e.target.value)));
  $("r-round").addEventListener("change", (e) => showStep(Number(e.target.value) + 1));
  $("r-download").addEventListener("click", async () => {
    try { download("suburbia-record.json", await apiText("GET", `/api/replays/${S.replay}/record`)); }
    catch (error) { say(error.message, true); }
  });
  document.addEventListener("keydown", (e) => {
    if ($("replay").hidden || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === "ArrowLeft") showStep(Math.max(0, S.step - 1));
    if (e.key === "ArrowRight") showStep(S.step + 1);
  });
  window.addEventListener("hashchange", route);
  route();
}

init();
