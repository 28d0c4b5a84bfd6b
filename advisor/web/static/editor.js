// The editor: a refuge-position/1 document changed by clicking, checked by the server's own reader
// after every change; each problem is shown beside the field its JSON path names.
import { api, clear, download, fileDrop, h, loadCatalogue, say, showError, tileChip } from "./common.js";

let doc = null;
let catalogue = null;
let timer = null;
const editor = document.getElementById("editor");

function pathText(parts) {
  return parts.reduce((text, p) => (typeof p === "number" ? `${text}[${p}]` : text ? `${text}.${p}` : p), "");
}

function getAt(parts) { return parts.reduce((o, p) => (o === undefined || o === null ? undefined : o[p]), doc); }

function setAt(parts, value) {
  let o = doc;
  for (const p of parts.slice(0, -1)) { if (o[p] === undefined) o[p] = {}; o = o[p]; }
  if (value === undefined) delete o[parts[parts.length - 1]];
  else o[parts[parts.length - 1]] = value;
  changed();
}

function changed() {
  render();
  clearTimeout(timer);
  timer = setTimeout(validate, 120);
}

function field(label, parts, input) {
  return h("label", { class: "field", dataset: { path: pathText(parts) } }, h("span", {}, label), input);
}

function numberField(label, parts) {
  const value = getAt(parts);
  return field(label, parts, h("input", { type: "number", value: value === undefined ? "" : value, name: pathText(parts),
    onchange: (e) => setAt(parts, e.target.value === "" ? undefined : Number(e.target.value)) }));
}

function textField(label, parts) {
  return field(label, parts, h("input", { type: "text", value: getAt(parts) || "", name: pathText(parts), maxlength: 200,
    onchange: (e) => setAt(parts, e.target.value || undefined) }));
}

function selectField(label, parts, choices, blank) {
  const value = getAt(parts);
  return field(label, parts, h("select", { name: pathText(parts), onchange: (e) => setAt(parts, e.target.value === "" ? undefined : e.target.value) },
    blank ? h("option", { value: "" }, blank) : null,
    choices.map((c) => h("option", { value: c, selected: String(c) === String(value) }, c))));
}

function tileSelect(onPick, label) {
  return h("select", { class: "add-tile", "aria-label": label, onchange: (e) => { if (e.target.value) onPick(e.target.value); } },
    h("option", { value: "" }, `+ ${label}`), catalogue.tiles.map((t) => h("option", { value: t.name }, t.title)));
}

// A row of tiles in order (path, hand, set aside): × removes one, the select adds one at the end.
function tileList(label, parts) {
  const tiles = getAt(parts) || [];
  return h("div", { class: "field tiles", dataset: { path: pathText(parts) } }, h("span", {}, label),
    h("div", { class: "chips" }, tiles.map((name, i) => h("span", { class: "chip" }, tileChip(name),
      h("button", { type: "button", class: "remove", title: `remove ${name}`, "aria-label": `remove ${name} from ${pathText(parts)}`,
        onclick: () => { const next = tiles.slice(); next.splice(i, 1); setAt(parts, next); } }, "×")))),
    tileSelect((name) => setAt(parts, [...tiles, name]), `add to ${label.toLowerCase()}`));
}

// A multiset {name: count} (bag, market): − and + per tile, the select adds a new kind.
function counts(label, parts, fixed) {
  const bag = getAt(parts) || {};
  const set = (name, n) => { const next = { ...bag }; if (n > 0 || fixed) next[name] = Math.max(0, n); else delete next[name]; setAt(parts, next); };
  return h("div", { class: "field counts", dataset: { path: pathText(parts) } }, h("span", {}, label),
    h("div", { class: "chips" }, Object.entries(bag).map(([name, n]) => h("span", { class: "chip", dataset: { path: pathText([...parts, name]) } }, tileChip(name),
      h("button", { type: "button", class: "minus", "aria-label": `one ${name} fewer`, onclick: () => set(name, n - 1) }, "−"),
      h("b", {}, n), h("button", { type: "button", class: "plus", "aria-label": `one ${name} more`, onclick: () => set(name, n + 1) }, "+")))),
    fixed ? null : tileSelect((name) => set(name, (bag[name] || 0) + 1), `add to ${label.toLowerCase()}`));
}

function render() {
  const players = doc.players || [];
  clear(editor,
    h("fieldset", {}, h("legend", {}, "Game"),
      textField("Name", ["name"]), textField("Story", ["story"]),
      typeof doc.route === "string" || doc.route === undefined ? selectField("Route", ["route"], Object.keys(catalogue.routes)) : field("Route", ["route"], h("span", {}, "custom")),
      numberField("Walk", ["walk"]), numberField("Turn", ["turn"])),
    h("fieldset", {}, h("legend", {}, "Decision"),
      selectField("Phase", ["decision", "phase"], catalogue.phases),
      numberField("Player", ["decision", "player"]),
      selectField("Tile", ["decision", "tile"], catalogue.tiles.map((t) => t.name), "(none)"),
      numberField("Extra plays", ["decision", "extra_plays"])),
    h("fieldset", {}, h("legend", {}, "Weather"),
      numberField("Suns on track", ["weather", "track_suns"]), numberField("Storms on track", ["weather", "track_storms"]),
      numberField("Deck Suns", ["weather", "deck_suns"]), numberField("Deck Storms", ["weather", "deck_storms"]),
      numberField("Reserve", ["weather", "reserve"])),
    h("fieldset", {}, h("legend", {}, "Market and box"), counts("Market", ["market"], true), counts("Box", ["box"])),
    players.map((p, i) => h("fieldset", { class: "player-edit", dataset: { path: pathText(["players", i]) } },
      h("legend", {}, `Player ${i}`),
      textField("Name", ["players", i, "name"]), selectField("Status", ["players", i, "status"], ["walking", "home"]),
      numberField("VP", ["players", i, "vp"]), numberField("Steps", ["players", i, "steps"]),
      numberField("Storms", ["players", i, "storms"]),
      tileList("Path", ["players", i, "path"]), tileList("Hand", ["players", i, "hand"]),
      tileList("Set aside", ["players", i, "set_aside"]), counts("Bag", ["players", i, "bag"]))));
  if (lastProblems) showProblems(lastProblems);
}

let lastProblems = null;

async function validate() {
  try {
    const result = await api("/api/validate", { position: doc });
    lastProblems = result.problems;
    clear(document.getElementById("validity"), result.valid ? "✓ valid position" : `✗ ${result.problems.length} problem(s)`);
    document.getElementById("validity").className = `validity ${result.valid ? "ok" : "bad"}`;
    showProblems(result.problems);
  } catch (e) { showError("errors", e); }
}

// Each problem goes beside the field whose JSON path is the longest prefix of the problem's path.
function showProblems(problems) {
  for (const old of editor.querySelectorAll(".problem")) old.remove();
  const fields = [...editor.querySelectorAll("[data-path]")];
  const general = [];
  for (const problem of problems) {
    let best = null;
    for (const f of fields) {
      const p = f.dataset.path;
      if (problem.path === p || problem.path.startsWith(p + ".") || problem.path.startsWith(p + "[")) {
        if (!best || p.length > best.dataset.path.length) best = f;
      }
    }
    const note = h("div", { class: "problem", role: "note", dataset: { problemPath: problem.path } }, `${problem.path}: ${problem.message}`);
    if (best) best.appendChild(note); else general.push(note);
  }
  clear(document.getElementById("general-problems"), general);
}

function load(data) {
  doc = data;
  lastProblems = null;
  showError("errors", null);
  changed();
}

async function main() {
  catalogue = await loadCatalogue();
  const examples = await api("/api/examples");
  const select = document.getElementById("start-example");
  for (const e of examples) select.appendChild(h("option", { value: e.name }, `${e.name} — ${e.title}`));
  select.addEventListener("change", async () => { if (select.value) load(await api(`/api/examples/${encodeURIComponent(select.value)}`)); });
  const routes = document.getElementById("new-route");
  for (const r of Object.keys(catalogue.routes)) routes.appendChild(h("option", { value: r }, r));
  document.getElementById("new-game").addEventListener("click", async () => {
    try { load(await api("/api/new", { players: Number(document.getElementById("new-players").value), route: routes.value })); } catch (e) { showError("errors", e); }
  });
  fileDrop(document.body, document.getElementById("upload"), (data) => load(data));
  document.getElementById("download").addEventListener("click", () => download("position.json", JSON.stringify(doc, null, 2)));
  document.getElementById("to-board").addEventListener("click", () => {
    sessionStorage.setItem("refuge-position", JSON.stringify(doc));
    location.href = "/board?upload=1";
  });
  const stored = new URLSearchParams(location.search).get("from") && sessionStorage.getItem("refuge-position");
  const name = new URLSearchParams(location.search).get("example") || "opening-2p";
  load(stored ? JSON.parse(stored) : await api(`/api/examples/${encodeURIComponent(name)}`));
  if (stored && new URLSearchParams(location.search).get("invalid")) {
    say("The position opened is not valid: each problem is shown beside its field. Fix them, then Open on the board.");
  }
}

main().catch((e) => showError("errors", e));
