// takboard page: plain ES module, no build step. Reads are open; changes send the stored token.
const $ = (sel) => document.querySelector(sel);
const SVG = "http://www.w3.org/2000/svg";
const FILES = "abcdefgh";
const TOKEN_KEY = "takboard.token";

const state = { game: null, leds: null, sim: null, health: null, camera: null, hand: null,
  calibrating: null, simMode: false, correcting: null };

// ---------------------------------------------------------------- HTTP
class ApiError extends Error {
  constructor(status, detail) { super(detail); this.status = status; }
}

async function api(method, path, body) {
  const headers = { "Accept": "application/json" };
  const token = localStorage.getItem(TOKEN_KEY);
  if (method !== "GET" && token) headers["Authorization"] = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 204) return null;
  const data = res.headers.get("content-type")?.includes("json") ? await res.json() : await res.text();
  if (!res.ok) {
    const detail = typeof data === "object" ? formatDetail(data.detail) : String(data);
    if (res.status === 401 || res.status === 403) askToken(res.status === 403 ? "That token was refused." : "");
    throw new ApiError(res.status, detail);
  }
  return data;
}

function formatDetail(detail) {
  if (Array.isArray(detail)) return detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
  return String(detail);
}

async function act(method, path, body) {
  try { return await api(method, path, body); }
  catch (err) { toast(err.message, true); return undefined; }
}

function toast(text, error = false) {
  const t = $("#toast");
  t.textContent = text; t.className = "show" + (error ? " error" : "");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.className = ""; }, error ? 5000 : 2500);
}

function askToken(why) {
  const dialog = $("#token-dialog");
  if (dialog.open) return;
  $("#token-input").value = localStorage.getItem(TOKEN_KEY) || "";
  if (why) toast(why, true);
  dialog.showModal();
}

// ---------------------------------------------------------------- board drawing
const PIECE = { white: { fill: "var(--light)", edge: "var(--light-edge)" },
                black: { fill: "var(--dark)", edge: "var(--dark-edge)" } };
const NUM_PLAYER = ["white", "black"];
const NUM_STONE = ["flat", "wall", "cap"];

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function squareXY(square, size) {
  const f = FILES.indexOf(square[0]), r = Number(square.slice(1)) - 1;
  return [30 + f * 100, (size - 1 - r) * 100];
}

// stacks: {square: [[player, stone], ...]} bottom -> top, names ("white", "flat").
function drawBoard(container, size, stacks, marks = {}, onTap = null) {
  const svg = el("svg", { viewBox: `0 0 ${size * 100 + 30} ${size * 100 + 30}`, role: "img" });
  el("rect", { x: 0, y: 0, width: size * 100 + 30, height: size * 100 + 30, fill: "var(--card)" }, svg);
  for (let r = 0; r < size; r++) {
    for (let f = 0; f < size; f++) {
      const sq = FILES[f] + (r + 1);
      const [x, y] = squareXY(sq, size);
      const g = el("g", { "data-square": sq, class: "square" }, svg);
      el("rect", { x: x + 1, y: y + 1, width: 98, height: 98, rx: 6,
        fill: (f + r) % 2 ? "var(--wood)" : "var(--wood-dark)" }, g);
      const mark = marks[sq];
      if (mark) el("rect", { x: x + 4, y: y + 4, width: 92, height: 92, rx: 6, fill: "none",
        stroke: mark, "stroke-width": 7 }, g);
      drawStack(g, x, y, stacks[sq] || []);
      if (onTap) {
        g.style.cursor = "pointer";
        g.addEventListener("click", () => onTap(sq));
      }
    }
  }
  for (let i = 0; i < size; i++) {
    el("text", { x: 30 + i * 100 + 50, y: size * 100 + 22, "text-anchor": "middle", "font-size": 18,
      fill: "var(--muted)" }, svg).textContent = FILES[i];
    el("text", { x: 15, y: (size - 1 - i) * 100 + 56, "text-anchor": "middle", "font-size": 18,
      fill: "var(--muted)" }, svg).textContent = String(i + 1);
  }
  container.replaceChildren(svg);
}

function drawStack(g, x, y, stack) {
  if (!stack.length) return;
  // pieces under the top: a strip of colour bars on the left edge, bottom piece lowest
  const under = stack.slice(0, -1).slice(-9);
  under.forEach(([player], i) => {
    el("rect", { x: x + 6, y: y + 84 - i * 9, width: 16, height: 8, rx: 2, fill: PIECE[player].fill,
      stroke: PIECE[player].edge, "stroke-width": 1.5 }, g);
  });
  const [player, stone] = stack[stack.length - 1];
  const p = PIECE[player], cx = x + 56, cy = y + 50;
  if (stone === "flat") {
    el("rect", { x: cx - 30, y: cy - 30, width: 60, height: 60, rx: 8, fill: p.fill, stroke: p.edge,
      "stroke-width": 3, class: "piece flat" }, g);
  } else if (stone === "wall") {
    el("rect", { x: cx - 11, y: cy - 36, width: 22, height: 72, rx: 4, fill: p.fill, stroke: p.edge,
      "stroke-width": 3, transform: `rotate(45 ${cx} ${cy})`, class: "piece wall" }, g);
  } else {
    el("circle", { cx, cy, r: 28, fill: p.fill, stroke: p.edge, "stroke-width": 3, class: "piece cap" }, g);
    el("circle", { cx, cy, r: 12, fill: "none", stroke: p.edge, "stroke-width": 2 }, g);
  }
  if (stack.length > 1) {
    el("circle", { cx: x + 84, cy: y + 16, r: 13, fill: "var(--accent)" }, g);
    el("text", { x: x + 84, y: y + 22, "text-anchor": "middle", "font-size": 17, "font-weight": 700,
      fill: "#fff", class: "height" }, g).textContent = String(stack.length);
  }
}

// Every ply choosing candidate `i` of a question records: the candidate, the reply seen with it
// (two plies at once) and any plies after (a catch-up after the board was out of sync).
function sequence(ambiguity, i) {
  const then = (ambiguity.then || [])[i];
  return [ambiguity.candidates[i], ...(then ? [then] : []), ...((ambiguity.more || [])[i] || [])];
}

function plySquares(ptn, size) {
  const m = /^([1-8]?)([FSC]?)([a-h])([1-8])([<>+-]?)([1-8]*)/.exec(ptn.replace(/^[FSC](?=[a-h])/, ""));
  if (!m) return [];
  const origin = m[3] + m[4];
  if (!m[5]) return [origin];
  const drops = m[6] ? m[6].split("").map(Number) : [1];
  const d = { "+": [0, 1], "-": [0, -1], ">": [1, 0], "<": [-1, 0] }[m[5]];
  const out = [origin];
  let f = FILES.indexOf(m[3]), r = Number(m[4]);
  for (let i = 0; i < drops.length; i++) { f += d[0]; r += d[1]; if (f < size && r <= size) out.push(FILES[f] + r); }
  return out;
}

// ---------------------------------------------------------------- rendering state
function renderGame() {
  const g = state.game;
  const pill = $("#state");
  if (!g) {
    pill.textContent = "no game"; pill.dataset.state = "none";
    drawBoard($("#board"), 6, {});
    $("#moves").replaceChildren();
    $("#players").textContent = "";
    renderBanners();
    return;
  }
  pill.textContent = g.result ? `over ${g.result}` : g.state; pill.dataset.state = g.state;
  $("#players").textContent = `${g.white || "white"} vs ${g.black || "black"} · ${g.size}x${g.size}` +
    (g.komi ? ` · komi ${g.komi}` : "");
  $("#to-move").textContent = g.result ? "" : `${g.to_move} to move`;
  $("#reserves").textContent = `white ${g.reserves.white.flats}+${g.reserves.white.caps}c · ` +
    `black ${g.reserves.black.flats}+${g.reserves.black.caps}c`;
  const marks = {};
  const last = g.plies[g.plies.length - 1];
  if (last) for (const sq of plySquares(last.ptn, g.size)) marks[sq] = "#f2c14e";
  if (g.ambiguity) {  // every square asked about: each candidate's and what follows it
    const asked = g.ambiguity.candidates.flatMap((_, i) => sequence(g.ambiguity, i));
    for (const c of asked) for (const sq of plySquares(c, g.size)) marks[sq] = "var(--warn)";
  }
  for (const sq of g.problem?.squares || []) marks[sq] = "var(--bad)";
  drawBoard($("#board"), g.size, g.stacks, marks);
  const list = $("#moves");
  list.replaceChildren();
  for (let i = 0; i < g.plies.length; i += 2) {
    const li = document.createElement("li");
    for (const p of g.plies.slice(i, i + 2)) {
      const span = document.createElement("span");
      span.textContent = p.ptn + (p.uncertain ? "?" : "");
      span.className = "ply" + (p.uncertain ? " unsure" : "") + (p === last ? " last" : "");
      span.dataset.number = p.number;
      if (p.alternatives.length) span.title = `unsure: it may have been ${p.alternatives.join(" or ")}`;
      if (p === last && !g.result) {  // the camera got it wrong: one tap to put it right
        span.title = (span.title ? span.title + ". " : "") + "not what was played? tap to correct it";
        span.addEventListener("click", () => openCorrection(p));
      }
      li.appendChild(span);
    }
    list.appendChild(li);
  }
  list.scrollTop = list.scrollHeight;
  if (state.correcting !== null && (!last || last.number !== state.correcting || g.result)) closeCorrection();
  $("#download").href = `/api/library/${g.id}/ptn`;
  $("#ninja").href = g.ptn_ninja_url;
  renderTags();
  renderBanners();
}

// The last ply, corrected: an unsure ply offers the plies the camera named beside it, a placement
// its square's other stones (the reader's kind calls are its weakest); anything else is typed,
// starting from the ply as recorded.
function openCorrection(ply) {
  state.correcting = ply.number;
  $("#correct-what").textContent = `Ply ${ply.number} was recorded as ${ply.ptn}. It was: `;
  const choices = $("#correct-choices");
  choices.replaceChildren();
  const offered = [...ply.alternatives];
  const placed = /^([SC]?)([a-h][1-8])$/.exec(ply.ptn);
  if (placed) for (const stone of ["", "S", "C"]) if (stone !== placed[1]) offered.push(stone + placed[2]);
  for (const ptn of new Set(offered)) choices.appendChild(button(ptn, () => correctLast(ptn), "choice"));
  $("#correct-ply-text").value = ply.ptn;
  $("#correct-ply").hidden = false;
}

function closeCorrection() {
  state.correcting = null;
  $("#correct-ply").hidden = true;
}

async function correctLast(ptn) {
  const number = state.correcting;
  const done = await act("PUT", "/api/game/plies/last", { ptn });
  if (!done) return;
  closeCorrection();
  toast(`ply ${number} corrected to ${done.ptn}`);
  state.game = done.game; renderGame();
}

function renderTags() {
  const form = $("#tags-form");
  if (form.contains(document.activeElement)) return;
  form.replaceChildren();
  const names = ["Player1", "Player2", "Event", "Site", "Round"];
  for (const name of names) {
    const label = document.createElement("label"); label.textContent = name;
    const input = document.createElement("input"); input.name = name; input.maxLength = 200;
    input.value = state.game.tags[name] || "";
    form.append(label, input);
  }
  const save = document.createElement("button"); save.type = "submit"; save.textContent = "Save tags";
  form.append(document.createElement("span"), save);
}

function button(text, onClick, cls = "") {
  const b = document.createElement("button");
  b.type = "button"; b.textContent = text; b.className = cls; b.addEventListener("click", onClick);
  return b;
}

function renderBanners() {
  const box = $("#banners");
  box.replaceChildren();
  const g = state.game;
  const add = (kind, html) => {
    const div = document.createElement("div"); div.className = `banner ${kind}`;
    div.dataset.kind = kind;
    const strong = document.createElement("strong"); strong.textContent = html;
    div.appendChild(strong); box.appendChild(div); return div;
  };
  if (state.health && state.health.camera.state !== "ok" && state.health.camera.state !== "absent") {
    add("paused", `Camera ${state.health.camera.state}: recording paused. ${state.health.camera.error || ""}`);
  }
  if (!g) return;
  if (g.ambiguity) {
    const div = add("ambiguity", "Which ply was that?");
    if (g.ambiguity.reason) {  // e.g. "a ply before this board was not seen": the candidates are that ply
      const why = document.createElement("span"); why.className = "reason";
      why.textContent = ` (${g.ambiguity.reason})`; div.appendChild(why);
    }
    // two plies seen at once (or more, catching up): choosing the candidate records them all
    g.ambiguity.candidates.forEach((c, i) => div.appendChild(button(sequence(g.ambiguity, i).join(" then "), () =>
      act("POST", "/api/game/ambiguity", { ambiguity_id: g.ambiguity.id, candidate: i }), "candidate")));
    div.appendChild(button("another…", () => $("#manual-ply-text").focus()));
    div.appendChild(button("none: nothing was played", () =>
      act("DELETE", `/api/game/ambiguity?ambiguity_id=${g.ambiguity.id}`), "decline"));
    // the camera records nothing past an unnamed ply, but keeps what it sees (Tracker._boards_waiting)
    const on = document.createElement("span"); on.className = "reason";
    on.textContent = " Best answered before the next ply; plies made meanwhile are recorded once it is.";
    div.appendChild(on);
  }
  if (g.problem && g.problem.kind) {
    const kind = g.problem.kind;
    const what = kind === "desync" ? "The board does not match the game" : "No legal ply explains the board";
    const squares = (g.problem.squares || []).join(", ");
    const div = add(kind, `${what}${squares ? ": check " + squares : ""}.` +
      (kind === "desync" ? " Recording waits until it matches again." : ""));
    if (g.plies.length) div.appendChild(button("Take back last ply", () =>
      act("POST", "/api/game/takeback", { plies: 1 })));
    // the board is as recorded and the camera misreads a piece on it: go on from it
    const right = button("The board is right", () => act("POST", "/api/game/in-sync"), "in-sync");
    right.title = "the pieces stand as the game says: the camera misreads them; go on from the board as it is";
    div.appendChild(right);
    if (state.simMode) div.appendChild(button("Put pieces back", () => act("POST", "/api/sim/reset")));
  }
  if (g.computer && !g.result) {
    if (g.computer.move) {
      const div = add("computer", `The computer plays ${g.computer.move}: make it on the board (the LEDs show it).`);
      if (state.simMode) div.appendChild(button("Make it on the table", () =>
        act("POST", "/api/sim/ply", { ptn: g.computer.move })));
    } else if (g.computer.thinking) {
      add("computer", "The computer is thinking…");
    }
  }
  if (g.result) {
    const div = add("over", `Game over: ${g.result}`);
    div.appendChild(button("New game", () => $("#new-game-dialog").showModal()));
  }
}

function renderLeds() {
  const box = $("#leds");
  const size = state.game?.size || state.sim?.size || 6;
  box.style.gridTemplateColumns = `repeat(${size}, 1fr)`;
  box.replaceChildren();
  const squares = state.leds?.squares || {};
  for (let r = size - 1; r >= 0; r--) {
    for (let f = 0; f < size; f++) {
      const sq = FILES[f] + (r + 1);
      const d = document.createElement("div");
      d.className = "led"; d.dataset.square = sq; d.textContent = sq;
      const light = squares[sq];
      if (light && light.effect !== "off") {
        d.style.background = light.colour;
        d.style.boxShadow = `0 0 10px ${light.colour}`;
        d.style.color = "#0008";
        d.classList.add("lit", light.effect);
        d.dataset.colour = light.colour;
      }
      box.appendChild(d);
    }
  }
  const link = state.leds?.link;
  $("#link-status").textContent = link ? `link ${link.state}${link.firmware ? " · fw " + link.firmware : ""}` : "";
  const range = $("#brightness");
  if (state.leds && document.activeElement !== range) range.value = state.leds.brightness;
}

function renderSim() {
  const panel = $("#sim-panel");
  panel.hidden = !state.simMode;
  if (!state.simMode || !state.sim) return;
  const s = state.sim;
  const stacks = {};
  for (const [sq, st] of Object.entries(s.stacks)) stacks[sq] = st.map(([p, k]) => [NUM_PLAYER[p], NUM_STONE[k]]);
  const marks = {};
  if (state.hand) marks[state.hand.from] = "var(--warn)";
  drawBoard($("#sim-board"), s.size, stacks, marks, simTap);
  $("#hand-state").textContent = s.in_hand.length ? `holding ${s.in_hand.length}: tap squares to drop`
    : (s.hand_over ? "hand over the board" : "");
  $("#sim-hand").textContent = s.hand_over && !s.in_hand.length ? "Take hand away" : "Hand over board";
  if (!s.in_hand.length) state.hand = null;
  const count = $("#sim-count");
  if (count.options.length !== s.size) {
    count.replaceChildren(...Array.from({ length: s.size }, (_, i) => new Option(`pick up ${i + 1}`, i + 1)));
  }
}

function simColour() {  // "to move": the server knows the game as it is now
  const choice = $("#sim-colour").value;
  return choice === "auto" ? "to_move" : choice;
}

async function simTap(square) {
  const tool = document.querySelector("input[name=tool]:checked").value;
  if (tool === "place") {
    await act("POST", "/api/sim/place", { square, player: simColour(), stone: $("#sim-stone").value });
  } else if (tool === "knock") {
    await act("POST", "/api/sim/knock-over", { square, direction: $("#sim-direction").value });
  } else if (tool === "remove") {
    await act("POST", "/api/sim/take-back-piece", { square });
  } else if (tool === "pickup") {
    if (state.sim && state.sim.in_hand.length) {
      await act("POST", "/api/sim/drop", { square, count: 1 });
    } else {
      const height = (state.sim?.stacks[square] || []).length;
      const count = Math.min(Number($("#sim-count").value), height, state.sim?.size || 8);
      if (!height) { toast(`${square} is empty`, true); return; }
      if (await act("POST", "/api/sim/pick-up", { square, count }) !== undefined) state.hand = { from: square };
    }
  }
}

function renderHealth() {
  const h = state.health;
  if (!h) return;
  const rows = [
    ["camera", `${h.camera.state} · ${h.camera.fps} fps · ${h.camera.source}`],
    ["vision", `${h.vision.board_found ? "board found" : "no board"}${h.vision.occluded ? " · hand" : ""}` +
      (h.vision.latency_ms_p50 != null ? ` · ${h.vision.latency_ms_p50} ms` : "")],
    ["LED link", `${h.link.state} · ${h.link.port}${h.link.firmware ? " · fw " + h.link.firmware : ""}`],
    ["journal", `${h.journal.state} · ${h.journal.games} games`],
    ["recording", h.recording],
    ["tracker", h.tracker === "resuming" ? "resuming: checking the board against the game" : h.tracker],
  ];
  $("#health").replaceChildren(...rows.flatMap(([k, v]) => {
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = v; dd.dataset.key = k;
    return [dt, dd];
  }));
  $("#camera-status").textContent = `${h.camera.state} · ${h.camera.fps} fps`;
  $("#hint").disabled = !h.hints;
  if (h.sim !== state.simMode) { state.simMode = h.sim; renderSim(); refreshSim(); }
}

async function renderLibrary() {
  const games = await api("GET", "/api/library").catch(() => []);
  const body = $("#library tbody");
  body.replaceChildren(...games.map((g) => {
    const tr = document.createElement("tr");
    tr.dataset.game = g.id;
    const cells = [g.id, g.date, `${g.white || "?"} – ${g.black || "?"}`, g.size,
      g.in_progress ? "playing" : g.result, ""];
    for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }
    const tools = tr.lastChild;
    const dl = document.createElement("a"); dl.className = "button quiet"; dl.textContent = "PTN";
    dl.href = `/api/library/${g.id}/ptn`; dl.setAttribute("download", "");
    const view = button("view", async () => {
      const d = await act("GET", `/api/library/${g.id}`);
      if (d) window.open(d.ptn_ninja_url, "_blank", "noopener");
    }, "quiet");
    tools.append(dl, view);
    if (!g.in_progress) tools.append(button("delete", async () => {
      if (confirm(`Delete game ${g.id}?`) && await act("DELETE", `/api/library/${g.id}`) !== undefined) renderLibrary();
    }, "quiet"));
    return tr;
  }));
}

// ---------------------------------------------------------------- camera
function refreshCameraImage() {
  const img = $("#camera-img");
  if (refreshCameraImage.busy) return;
  refreshCameraImage.busy = true;
  const next = new Image();
  next.onload = () => { img.src = next.src; img.hidden = false; refreshCameraImage.busy = false; };
  next.onerror = () => { refreshCameraImage.busy = false; };
  next.src = `/api/camera/frame.jpg?t=${Date.now()}`;
}

async function refreshCameraOverlay() {
  const cam = await api("GET", "/api/camera").catch(() => null);
  if (!cam) return;
  state.camera = cam;
  const o = cam.overlay || {};
  renderMount(o.mount, o.contrast, o.exposure, o.glare);
  const svg = $("#camera-overlay");
  svg.replaceChildren();
  if (!o.width) return;
  svg.setAttribute("viewBox", `0 0 ${o.width} ${o.height}`);
  const scale = o.width / 640;
  if (o.grid && o.grid.length === 4) {
    el("polygon", { points: o.grid.map((p) => p.join(",")).join(" "), fill: "none", stroke: "#4cf",
      "stroke-width": 2 * scale }, svg);
  }
  for (const line of o.lines || []) {
    el("line", { x1: line[0][0], y1: line[0][1], x2: line[1][0], y2: line[1][1], stroke: "#4cf8",
      "stroke-width": scale }, svg);
  }
  for (const [sq, s] of Object.entries(o.squares || {})) {
    const t = el("text", { x: s.center[0], y: s.center[1], "text-anchor": "middle", "font-size": 13 * scale,
      "font-weight": 700, fill: s.confidence < 0.6 ? "#f66" : "#ff4", stroke: "#000", "stroke-width": 3 * scale,
      "paint-order": "stroke" }, svg);
    t.textContent = s.label;
    t.dataset.square = sq;
  }
  // the squares a lamp glares on (vision/glare.py): pieces there may be missed
  for (const sq of (o.glare && o.glare.squares) || []) {
    const s = (o.squares || {})[sq];
    if (!s) continue;
    el("circle", { cx: s.center[0], cy: s.center[1], r: 16 * scale, fill: "none", stroke: "#fff",
      "stroke-width": 2 * scale, "stroke-dasharray": `${4 * scale} ${3 * scale}`, class: "glare",
      "data-square": sq }, svg);
  }
  for (const p of state.calibrating || []) el("circle", { cx: p[0], cy: p[1], r: 6 * scale, fill: "#f80" }, svg);
}

// where the camera is, as the located board tells it (vision/mount.py), how far the light pieces
// stand out from the board (vision/contrast.py), whether the bare board is overexposed
// (vision/exposure.py) or glared on (vision/glare.py), and what to change
function renderMount(mount, contrast, exposure, glare) {
  const p = $("#camera-mount");
  if (!mount) { p.textContent = ""; p.classList.remove("warn"); return; }
  let head = `camera ${Math.round(mount.view_angle_deg)}° from vertical · squares ${Math.round(mount.square_px)} px`;
  if (contrast) head += ` · light pieces ΔE ${Math.round(contrast.delta_e)} from the board`;
  const advice = [...mount.advice, ...(exposure ? exposure.advice : []),
                  ...(glare ? glare.advice : []), ...(contrast ? contrast.advice : [])];
  p.textContent = advice.length ? `${head}: ${advice.join("; ")}` : `${head} · set-up good`;
  p.classList.toggle("warn", advice.length > 0);
}

function cameraClick(ev) {
  if (!state.calibrating) return;
  const img = $("#camera-img");
  const rect = img.getBoundingClientRect();
  const x = (ev.clientX - rect.left) * (img.naturalWidth / rect.width);
  const y = (ev.clientY - rect.top) * (img.naturalHeight / rect.height);
  state.calibrating.push([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
  refreshCameraOverlay();
  if (state.calibrating.length === 4) {
    const corners = state.calibrating;
    state.calibrating = null;
    $("#camera-view").classList.remove("calibrating");
    $("#calibrate-help").hidden = true;
    act("PUT", "/api/camera/calibration", { corners }).then((r) => { if (r !== undefined) toast("corners set"); });
  }
}

// ---------------------------------------------------------------- live updates
async function refreshGame() {
  try { state.game = await api("GET", "/api/game"); }
  catch (err) { if (err.status === 409) state.game = null; else return; }
  renderGame(); renderLeds(); renderSim();
}
async function refreshLeds() { state.leds = await api("GET", "/api/leds").catch(() => state.leds); renderLeds(); }
async function refreshSim() {
  if (!state.simMode) return;
  state.sim = await api("GET", "/api/sim/board").catch(() => state.sim); renderSim();
}
async function refreshHealth() { state.health = await api("GET", "/api/health").catch(() => state.health); renderHealth(); }

const pending = new Set();
function soon(fn) {
  if (pending.has(fn)) return;
  pending.add(fn);
  setTimeout(() => { pending.delete(fn); fn(); }, 30);
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/events`);
  ws.onopen = () => { $("#conn").classList.add("live"); soon(refreshGame); soon(refreshLeds); soon(refreshSim); };
  ws.onclose = () => { $("#conn").classList.remove("live"); setTimeout(connect, 1500); };
  ws.onmessage = (msg) => {
    const ev = JSON.parse(msg.data);
    document.body.dataset.lastEvent = ev.type;
    switch (ev.type) {
      case "health": state.health = { ...ev.data, sim: state.health?.sim ?? false, hints: state.health?.hints ?? false,
        events: ev.data.events }; renderHealth(); renderBanners(); break;
      case "leds": state.leds = { ...(state.leds || {}), ...ev.data, link: state.leds?.link }; renderLeds(); soon(refreshLeds); break;
      case "sim_board": state.sim = ev.data; renderSim(); break;
      case "hint": toast(`hint: ${ev.data.ptn}`); break;
      case "game_started": case "game_ended": soon(refreshGame); soon(renderLibrary); break;
      case "hello": break;
      default: soon(refreshGame);
    }
  };
}

// ---------------------------------------------------------------- controls
function wire() {
  $("#token-button").addEventListener("click", () => askToken(""));
  $("#token-dialog").addEventListener("close", () => {
    const value = $("#token-input").value.trim();
    if ($("#token-dialog").returnValue === "ok" && value) { localStorage.setItem(TOKEN_KEY, value); toast("token saved"); }
  });
  $("#new-game").addEventListener("click", () => $("#new-game-dialog").showModal());
  $("#new-game-dialog").addEventListener("close", async () => {
    if ($("#new-game-dialog").returnValue !== "ok") return;
    const f = new FormData($("#new-game-form"));
    const body = { size: Number(f.get("size")), komi: Number(f.get("komi")), white: f.get("white"),
      black: f.get("black"), opening: f.get("opening") };
    if (f.get("computer")) { body.computer = f.get("computer"); body.strength = f.get("strength"); }
    if (await act("POST", "/api/games", body)) { toast("new game started"); refreshGame(); renderLibrary(); refreshSim(); }
  });
  $("#takeback").addEventListener("click", () => act("POST", "/api/game/takeback", { plies: 1 }));
  $("#hint").addEventListener("click", async () => { const h = await act("POST", "/api/game/hint"); if (h) toast(`hint: ${h.ptn}`); });
  $("#resign").addEventListener("click", () => {
    const who = state.game?.to_move;
    if (who && confirm(`${who} resigns?`)) act("POST", "/api/game/end", { how: "resign", player: who });
  });
  $("#draw").addEventListener("click", () => { if (confirm("Agree a draw?")) act("POST", "/api/game/end", { how: "draw" }); });
  $("#correct-ply").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const ptn = $("#correct-ply-text").value.trim();
    if (ptn) correctLast(ptn);
  });
  $("#correct-cancel").addEventListener("click", closeCorrection);
  $("#manual-ply").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const ptn = $("#manual-ply-text").value.trim();
    if (!ptn) return;
    const g = state.game;
    const path = g?.ambiguity ? "/api/game/ambiguity" : "/api/game/plies";
    const body = g?.ambiguity ? { ambiguity_id: g.ambiguity.id, ptn } : { ptn };
    if (await act("POST", path, body)) $("#manual-ply-text").value = "";
  });
  $("#capture-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const saved = await act("POST", "/api/captures", { note: $("#capture-note").value.trim() });
    if (!saved) return;
    $("#capture-note").value = "";
    const link = $("#capture-link");
    link.href = saved.url;
    link.textContent = `${saved.name} (${saved.readings} readings, ${Math.ceil(saved.bytes / 1024)} KB)`;
    $("#capture-saved").hidden = false;
    toast("bug report saved");
  });
  $("#sim-ply").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const ptn = $("#sim-ply-text").value.trim();
    if (ptn && await act("POST", "/api/sim/ply", { ptn })) $("#sim-ply-text").value = "";
  });
  $("#sim-hand").addEventListener("click", () => act("PUT", "/api/sim/hand", { over: !(state.sim?.hand_over) }));
  $("#sim-reset").addEventListener("click", () => act("POST", "/api/sim/reset"));
  $("#tags-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const tags = {};
    for (const [k, v] of new FormData($("#tags-form"))) tags[k] = v.trim() ? v.trim() : null;
    if (await act("PATCH", "/api/game/tags", { tags })) { toast("tags saved"); document.activeElement.blur(); refreshGame(); }
  });
  $("#brightness").addEventListener("change", (ev) =>
    act("PUT", "/api/leds/brightness", { brightness: Number(ev.target.value) }));
  $("#calibrate").addEventListener("click", () => {
    state.calibrating = [];
    $("#camera-view").classList.add("calibrating");
    $("#calibrate-help").hidden = false;
  });
  $("#camera-view").addEventListener("click", cameraClick);
}

wire();
renderGame();
await refreshHealth();
refreshGame(); refreshLeds(); refreshSim(); renderLibrary();
connect();
setInterval(refreshCameraImage, 400);
setInterval(refreshCameraOverlay, 1000);
setInterval(refreshHealth, 5000);
