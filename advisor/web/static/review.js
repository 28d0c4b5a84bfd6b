// Game review: the move list by walk and turn, ←/→ to step, the board follows; Annotate → chart.
import { drawChart } from "./chart.js";
import { api, clear, fileDrop, h, loadCatalogue, params, renderBoard, showError } from "./common.js";

let source = null;
let game = null;
let at = 0;
let annotations = [];
const board = document.getElementById("board");
const movesEl = document.getElementById("moves");

const who = (player) => (player === null ? "chance" : game.names[player] || `player ${player}`);

async function open(newSource) {
  source = newSource;
  showError("errors", null);
  game = await api("/api/review", source);
  annotations = [];
  clear(document.getElementById("chart"));
  clear(document.getElementById("labels"));
  renderMoves();
  await go(0);
}

function renderMoves() {
  const walks = new Map();
  for (const m of game.moves) {
    if (!walks.has(m.walk)) walks.set(m.walk, new Map());
    const turns = walks.get(m.walk);
    if (!turns.has(m.turn)) turns.set(m.turn, []);
    turns.get(m.turn).push(m);
  }
  clear(movesEl, [...walks].map(([walk, turns]) => h("section", { class: "walk" }, h("h4", {}, `Walk ${walk}`),
    [...turns].map(([turn, moves]) => h("div", { class: "turn" }, h("span", { class: "turn-no" }, `${turn}.`),
      moves.map((m) => h("button", { type: "button", class: `move ${m.chance ? "chance" : ""}`, dataset: { event: m.event },
        title: `event ${m.event}: ${who(m.player)}`, onclick: () => go(m.event) }, m.chance ? m.action : `${who(m.player)}: ${m.action}`)))))));
}

async function go(index) {
  at = Math.max(0, Math.min(game.moves.length, index));
  try {
    const data = await api("/api/view", { ...source, at });
    renderBoard(board, data.view, { actions: false });
  } catch (e) { showError("errors", e); }
  for (const el of movesEl.querySelectorAll(".move.current")) el.classList.remove("current");
  const current = movesEl.querySelector(`.move[data-event="${at}"]`);
  if (current) { current.classList.add("current"); current.scrollIntoView({ block: "nearest" }); }
  const move = game.moves[at];
  clear(document.getElementById("at-text"), move ? `before event ${at}: ${who(move.player)} ${move.action}` : `after the last event (${game.moves.length})`);
  const note = annotations.find((a) => a.event === at);
  clear(document.getElementById("info"), note ? `${who(note.player)} played ${note.played}` +
    (note.label ? ` — ${note.label}: ${note.best} was better (${(100 * note.best_win).toFixed(0)}% vs ${(100 * (note.played_win ?? 0)).toFixed(0)}%)` : " — fine") : "");
}

async function annotate() {
  const progress = document.getElementById("annotate-progress");
  const status = document.getElementById("annotate-status");
  const iterations = Number(params.get("iterations") || 100);
  try {
    const job = await api("/api/annotations", { ...source, iterations });
    progress.hidden = false;
    const events = new EventSource(`/api/annotations/${job.id}/events`);
    const onData = (event) => {
      const data = JSON.parse(event.data);
      const r = data.result;
      if (r) { progress.max = Math.max(1, r.total); progress.value = r.done; clear(status, `${r.done}/${r.total} decisions`); }
      if (data.state === "queued") clear(status, `queued (${data.queue_position})`);
      if (["done", "capped", "cancelled", "failed"].includes(data.state)) {
        events.close();
        if (data.state === "failed" || data.state === "cancelled") { clear(status, `${data.state} ${data.error || data.reason}`); return; }
        annotations = r.annotations;
        clear(status, `${annotations.length} decisions annotated` + (data.state === "capped" ? " (time cap reached)" : ""));
        showAnnotations(r);
      }
    };
    for (const state of ["queued", "running", "done", "capped", "cancelled", "failed"]) events.addEventListener(state, onData);
  } catch (e) { showError("errors", e); }
}

function showAnnotations(result) {
  drawChart(document.getElementById("chart"), { annotations, moves: game.moves, players: game.players, names: game.names, onPick: go });
  const labelled = annotations.filter((a) => a.label);
  clear(document.getElementById("labels"),
    h("table", { class: "summary-table" }, h("tr", {}, ["player", "accuracy", "inaccuracies", "mistakes", "blunders"].map((c) => h("th", {}, c))),
      result.players.map((s) => h("tr", {}, h("td", {}, who(s.player)), h("td", {}, s.accuracy.toFixed(1)), h("td", {}, s.inaccuracies), h("td", {}, s.mistakes), h("td", {}, s.blunders)))),
    h("ul", {}, labelled.map((a) => h("li", {}, h("button", { type: "button", class: `link label ${a.label}`, dataset: { event: a.event }, onclick: () => go(a.event) },
      `event ${a.event} (walk ${a.walk}, turn ${a.turn}) ${who(a.player)}: ${a.played} — ${a.label}, better ${a.best} (−${(100 * a.loss).toFixed(1)})`)))));
}

document.addEventListener("keydown", (e) => {
  if (!game || ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
  if (e.key === "ArrowLeft") { e.preventDefault(); go(at - 1); }
  if (e.key === "ArrowRight") { e.preventDefault(); go(at + 1); }
});
document.getElementById("prev").addEventListener("click", () => go(at - 1));
document.getElementById("next").addEventListener("click", () => go(at + 1));
document.getElementById("annotate").addEventListener("click", annotate);

async function main() {
  await loadCatalogue();
  const files = await api("/api/games");
  const select = document.getElementById("file-select");
  for (const f of files.files) select.appendChild(h("option", { value: f.name }, f.name));
  select.addEventListener("change", () => select.value && open({ file: select.value }).catch((e) => showError("errors", e)));
  fileDrop(document.body, document.getElementById("upload"), (data) => open({ record: data }).catch((e) => showError("errors", e)));
  if (params.get("file")) await open({ file: params.get("file") });
  else if (params.get("tracked")) await open({ tracked: params.get("tracked") });
  else if (params.get("upload") && sessionStorage.getItem("refuge-record")) await open({ record: JSON.parse(sessionStorage.getItem("refuge-record")) });
}

main().catch((e) => showError("errors", e));
