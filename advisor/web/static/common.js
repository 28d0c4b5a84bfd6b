// Shared by every page: the API client, a DOM builder that escapes by construction, the board.
// Every name from a file reaches the page through textContent (never innerHTML).

export async function api(path, body, method) {
  const options = { method: method || (body === undefined ? "GET" : "POST"), headers: {} };
  if (body === undefined && options.method !== "GET") body = {};  // the server takes only JSON writes
  if (body !== undefined) {
    options.headers["content-type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = { error: `${response.status} ${response.statusText}` }; }
  if (!response.ok) {
    const error = new Error(data && data.error ? data.error : `HTTP ${response.status}`);
    error.status = response.status;
    error.problems = (data && data.problems) || [];
    throw error;
  }
  return data;
}

// h("div", {class: "x", onclick: f}, "text", child, [more children]) — text always as text nodes.
export function h(tag, attrs, ...children) {
  const svg = ["svg", "line", "circle", "polyline", "rect", "text", "g", "path", "title"].includes(tag);
  const el = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function showError(where, error) {
  const box = typeof where === "string" ? document.getElementById(where) : where;
  if (!box) return;
  clear(box, error ? h("div", { class: "error", role: "alert" }, String(error.message || error)) : null);
}

export const params = new URLSearchParams(location.search);

let catalogue = null;
export async function loadCatalogue() {
  if (!catalogue) {
    catalogue = await api("/api/catalogue");
    catalogue.byName = Object.fromEntries(catalogue.tiles.map((t) => [t.name, t]));
  }
  return catalogue;
}

export function tileInfo(name) {
  const tile = catalogue && catalogue.byName[name];
  if (!tile) return name;
  const cost = tile.start ? "start tile" : `cost ${tile.cost}`;
  return `${tile.title} — ${tile.category}, ${cost}, paw ${tile.paw}: ${tile.effect}`;
}

// One tile: colour and shape by category, its name, cost and paw value; details on hover or tap.
export function tileChip(name, extra) {
  const tile = (catalogue && catalogue.byName[name]) || { title: name, category: "unknown", cost: 0, paw: 0 };
  const chip = h("button", { type: "button", class: `tile ${tile.category}`, title: tileInfo(name),
                             dataset: { tile: name }, ...(extra || {}) },
    h("span", { class: "tile-name" }, tile.title),
    tile.start || tile.category === "weather" ? null : h("span", { class: "tile-cost" }, tile.cost),
    tile.paw ? h("span", { class: "tile-paw" }, `paw ${tile.paw}`) : null);
  if (!(extra && extra.onclick)) chip.addEventListener("click", () => say(tileInfo(name)));
  return chip;
}

export function say(text) {
  const bar = document.getElementById("info");
  if (bar) clear(bar, text);
}

function counts(bag) {
  return Object.entries(bag).map(([name, n]) => h("span", { class: "count" }, tileChip(name), h("b", {}, `×${n}`)));
}

// "1 Storm", "2 Storms", "1 Step": the count and the word, plural unless the count is 1 (VP never).
export function plural(count, word) {
  return `${count} ${count === 1 || word === "VP" ? word : word + "s"}`;
}

// The player colours of every chart and bar, the same as the CLI's PNG (advisor/cli/charts.py).
export const PLAYER_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd"];

export function playerLabel(view, seat) {
  const player = view.players[seat];
  return player && player.name ? `${player.name} (${seat})` : `player ${seat}`;
}

// A move in an event list: a decision with who made it, a draw with whose it is, the weather alone.
export function moveText(m, label) {
  if (!m.chance) return `${label(m.player)}: ${m.action}`;
  return m.drawer !== null && m.drawer !== undefined ? `${label(m.drawer)} drew ${m.action.replace(/^drawn /, "")}` : m.action;
}

// What the player to decide chooses, in words (the phase names are the notation's).
const QUESTIONS = { decide: "return or draw", "return-discard": "discard a path tile on going home, or none",
  choose: "which tile to play", option: "which option", discard: "what to discard", extra: "play the other tile or draw",
  buy: "buy a tile or pass" };

// The board: weather, market, every player's path, hand, set-aside and bag; the decision.
// With options.top (an element), the decision, its options and the weather go there (the first
// screen), the rest into el.
export function renderBoard(el, view, options) {
  options = options || {};
  const decision = view.decision;
  const head = [
    h("section", { class: "summary" },
      h("span", { class: "pill" }, `Walk ${view.walk}/${view.walks}`),
      h("span", { class: "pill" }, `Turn ${view.turn}`),
      h("span", { class: "pill" }, `Route ${view.route.name}`),
      h("span", { class: `pill decision ${decision.kind}`, id: "decision-text" }, decisionText(view))),
    options.actions === false ? null : actionsSection(view, options),
    weatherSection(view)];
  const rest = [
    h("section", { class: "market", "aria-label": "market" },
      h("h3", {}, "Market"),
      h("div", { class: "stacks" }, view.route.stacks.map((s) =>
        h("div", { class: `stack ${s.left ? "" : "empty"}` }, tileChip(s.tile), h("span", { class: "left" }, `${s.left} left`))))),
    h("section", { class: "players" }, view.players.map((p) => playerCard(view, p))),
    Object.keys(view.box).length ? h("section", { class: "box" }, h("h3", {}, "Box"), counts(view.box)) : null];
  if (options.top) { clear(options.top, head); clear(el, rest); } else clear(el, head, rest);
}

// The weather track: Suns, Storms and the empty slots left before the Storm hits, with the count in
// words; "1 more Storm and it hits" stands out.
function weatherSection(view) {
  const w = view.weather;
  const missing = Math.max(0, w.threshold - w.storms_on_track);
  const owned = w.owned_storms.map((n, seat) => (n ? `${playerLabel(view, seat)} ${n}` : null)).filter(Boolean);
  const warning = missing === 0 ? "the Storm has hit" : `${plural(missing, "more Storm")} and it hits`;
  return h("section", { class: "weather", "aria-label": "weather" },
    h("div", { class: "track", title: `${w.storms_on_track} of ${w.threshold} Storms on the track` },
      Array.from({ length: w.track_suns }, () => h("span", { class: "sun", title: "Sun on the track" }, "☀")),
      Array.from({ length: w.storms_on_track }, () => h("span", { class: "storm", title: "Storm on the track" }, "☁")),
      Array.from({ length: missing }, () => h("span", { class: "slot", title: "empty Storm slot: the Storm hits when none is left" }, ""))),
    h("p", { class: `storm-count ${missing === 1 ? "warn" : ""}`, id: "storm-warning" },
      h("strong", {}, `Storms ${w.storms_on_track}/${w.threshold}: ${warning}`)),
    h("p", { class: "weather-more" }, [owned.length ? `owned: ${owned.join(", ")} · ` : "",
      `deck ${plural(w.deck_suns, "Sun")}, ${plural(w.deck_storms, "Storm")} · reserve ${w.reserve}`]));
}

function decisionText(view) {
  const d = view.decision;
  if (d.kind === "decision") return `${playerLabel(view, d.player)} to decide: ${QUESTIONS[d.phase] || d.phase}${d.tile ? " (" + d.tile + ")" : ""}`;
  if (d.kind === "chance") return `Chance: ${d.phase}${d.drawer !== null && d.drawer !== undefined ? " for " + playerLabel(view, d.drawer) : ""}`;
  return `Game over: ${view.scores.join(" – ")}`;
}

// A bag, folded: its size (and Storms) on one line, the tiles when opened; an unknown bag says so.
function bagRow(p) {
  const storms = p.bag.storm || 0;
  if (p.bag_unknown) {
    return h("div", { class: "row" }, h("span", { class: "label" }, "Bag"), h("span", { class: "bag-unknown" }, `unknown (${plural(p.bag_size, "tile")})`));
  }
  return h("details", { class: "row bag-row" },
    h("summary", {}, h("span", { class: "label" }, "Bag"), ` ${plural(p.bag_size, "tile")}` + (storms ? `, ${plural(storms, "Storm")}` : "")),
    h("div", { class: "bag" }, counts(p.bag)));
}

// A house drawn as SVG (an emoji needs an emoji font, which many machines lack).
function homeIcon() {
  return h("svg", { viewBox: "0 0 16 16", class: "icon", "aria-hidden": "true" },
    h("path", { d: "M8 1.5 1 7.5h2V14h4v-4h2v4h4V7.5h2z" }));
}

function playerCard(view, p) {
  const acting = view.decision.player === p.seat || view.decision.drawer === p.seat;
  return h("article", { class: `player ${acting ? "acting" : ""} ${p.status}`, dataset: { seat: p.seat } },
    h("header", {},
      h("strong", { class: "player-name" }, p.name || `Player ${p.seat}`),
      h("span", { class: "seat" }, ` seat ${p.seat}`),
      p.status === "home" ? h("span", { class: "home" }, " ", homeIcon(), " home") : null,
      p.choice ? h("span", { class: "choice" }, p.choice === "hidden" ? " (has chosen)" : ` chose: ${p.choice}`) : null),
    h("div", { class: "scores" },
      h("span", { class: "vp" }, `${p.vp} VP`), h("span", { class: "steps" }, plural(p.steps, "Step")),
      p.storms ? h("span", { class: "storms" }, `${plural(p.storms, "Storm")} on the track`) : null),
    h("div", { class: "row" }, h("span", { class: "label" }, "Path"),
      h("div", { class: "path" }, p.path.length ? p.path.map((t) => tileChip(t)) : h("i", {}, "empty"))),
    p.hand.length ? h("div", { class: "row" }, h("span", { class: "label" }, "Hand"), h("div", { class: "hand" }, p.hand.map((t) => tileChip(t)))) : null,
    p.set_aside.length ? h("div", { class: "row" }, h("span", { class: "label" }, "Set aside"), h("div", {}, p.set_aside.map((t) => tileChip(t)))) : null,
    bagRow(p));
}

function actionsSection(view, options) {
  const d = view.decision;
  const act = options.onAction;
  if (d.kind === "decision") {  // options.seats: every seat still to choose in a simultaneous step, any order
    const seats = options.seats && options.seats.length ? options.seats : [{ seat: d.player, options: view.legal }];
    const several = seats.length > 1;
    return h("section", { class: "actions", "aria-label": "legal options" },
      h("h3", {}, several ? `${d.phase}: each player chooses, in any order` : "Legal options"),
      seats.map((e) => h("div", { class: "seat-choices", dataset: { seat: e.seat } },
        several ? h("span", { class: "label" }, playerLabel(view, e.seat)) : null,
        h("div", { class: "buttons" }, e.options.map((a) => h("button", { type: "button", class: "action",
          dataset: { action: a, seat: e.seat }, disabled: !act, onclick: () => act && act(a, e.seat) }, a))))));
  }
  if (d.kind === "chance") return (options.chancePicker && options.chancePicker(view)) || chanceSection(view, act);
  return h("section", { class: "actions" }, h("h3", {}, "Game over"), h("p", {}, `Scores: ${view.scores.join(", ")}`));
}

// Every outcome of a chance event (weather Sun or Storm, a tie-break, ...) with its chance, and Sample.
export function chanceSection(view, act) {
  return h("section", { class: "actions", "aria-label": "chance outcomes" }, h("h3", {}, `Chance (${view.decision.phase}): tap what happened`),
    h("div", { class: "buttons" },
      act ? h("button", { type: "button", class: "sample", onclick: () => act(null) }, "Sample (random)") : null,
      view.chance.map((c) => h("button", { type: "button", class: "action chance", dataset: { action: c.action }, disabled: !act,
        onclick: () => act && act(c.action) }, `${c.action} (${(100 * c.probability).toFixed(1)}%)`))));
}

// Draws tapped tile by tile: for a deal, tap the (one or two) tiles taken out of the bag.
export function drawPicker(view, onPick) {
  const d = view.decision;
  const isDraw = view.chance.length && view.chance[0].action.startsWith("drawn ");
  if (!isDraw) return null;
  const size = view.chance[0].action.split(" ").length - 1;
  const bag = view.players[d.drawer].bag;
  const picked = [];
  const status = h("span", { class: "picked" }, `tap the ${size === 2 ? "two tiles" : "tile"} drawn`);
  const section = h("section", { class: "actions draw-picker", "aria-label": "tiles drawn" },
    h("h3", {}, `${playerLabel(view, d.drawer)} draws: tap the tiles`), status,
    h("div", { class: "buttons" }, Object.keys(bag).map((name) => tileChip(name, {
      onclick: () => {
        picked.push(name);
        const left = {}; for (const p of picked) left[p] = (left[p] || 0) + 1;
        const fits = view.chance.some((c) => { const w = c.action.split(" ").slice(1); return picked.every((p, i) => w.filter((x) => x === p).length >= left[p]); });
        if (!fits) { picked.length = 0; clear(status, "not possible, tap again"); return; }
        clear(status, `drawn: ${picked.join(", ")}`);
        if (picked.length === size) onPick(`drawn ${picked.join(" ")}`);
      } }))),
    h("button", { type: "button", class: "sample", onclick: () => onPick(null) }, "Sample (random)"));
  return section;
}

export function download(filename, text) {
  const link = h("a", { href: URL.createObjectURL(new Blob([text], { type: "application/json" })), download: filename });
  document.body.appendChild(link);
  link.click();
  link.remove();
}

export function readFileAsJson(file, maxBytes) {
  return new Promise((resolve, reject) => {
    if (file.size > maxBytes) { reject(new Error(`${file.name}: ${file.size} bytes, over the ${maxBytes}-byte cap`)); return; }
    const reader = new FileReader();
    reader.onload = () => { try { resolve(JSON.parse(reader.result)); } catch (e) { reject(new Error(`${file.name}: not JSON (${e.message})`)); } };
    reader.onerror = () => reject(new Error(`${file.name}: cannot be read`));
    reader.readAsText(file);
  });
}

// A file input plus drag-and-drop anywhere on `zone`.
export function fileDrop(zone, input, onJson) {
  const take = async (file) => { try { onJson(await readFileAsJson(file, 4 * 1024 * 1024), file.name); } catch (e) { showError("errors", e); } };
  input.addEventListener("change", () => input.files[0] && take(input.files[0]));
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("dragging"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("dragging"));
  zone.addEventListener("drop", (e) => { e.preventDefault(); zone.classList.remove("dragging"); if (e.dataTransfer.files[0]) take(e.dataTransfer.files[0]); });
}
