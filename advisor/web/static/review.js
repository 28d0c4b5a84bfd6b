// Game review as on lichess: the board, the win-chance graph with a cursor on the current event and
// the move list marked ?! ? ?? with the mover's chance after each decision, on one screen; ←/→, a
// click on a move or on the graph to jump. An annotation is saved beside its game, so it opens at once.
import { LABEL_MARKS, drawChart } from "./chart.js";
import { api, clear, fileDrop, h, loadCatalogue, moveText as eventText, params, renderBoard, showError } from "./common.js";

const ANNOTATION_FORMAT = "refuge-annotation/1";
let source = null;
let game = null;
let at = 0;
let annotations = [];
let chart = null;
let shown = 0;  // the last board asked for: an earlier answer arriving late is not drawn
const board = document.getElementById("board");
const movesEl = document.getElementById("moves");
const status = document.getElementById("annotate-status");

const who = (player) => (player === null ? "chance" : game.names[player] || `player ${player}`);
const moveText = (m) => eventText(m, who);
const percent = (p) => `${(100 * p).toFixed(0)}%`;

async function open(newSource) {
  showError("errors", null);
  game = await api("/api/review", newSource);
  source = Object.fromEntries(Object.entries(newSource).filter(([key]) => key !== "annotation"));
  clear(status);
  clear(document.getElementById("labels"));
  showAnnotations(game.annotation);
  if (game.annotation) {
    clear(status, `annotation ${game.annotation_file ? `saved in ${game.annotation_file}` : "opened"}` +
      ` (${game.annotation.iterations_per_decision ? game.annotation.iterations_per_decision.toLocaleString() + " iterations a decision" : "timed"})`);
  }
  showResult();
  await go(0);
}

// The moves by walk and turn; a decision annotated carries its mark and the mover's chance after it.
function renderMoves() {
  const noteOf = new Map(annotations.map((a) => [a.event, a]));
  const walks = new Map();
  for (const m of game.moves) {
    if (!walks.has(m.walk)) walks.set(m.walk, new Map());
    const turns = walks.get(m.walk);
    if (!turns.has(m.turn)) turns.set(m.turn, []);
    turns.get(m.turn).push(m);
  }
  const moveButton = (m) => {
    const a = noteOf.get(m.event);
    return h("button", { type: "button", class: `move ${m.chance ? "chance" : ""} ${a && a.label ? a.label : ""}`, dataset: { event: m.event },
      title: `event ${m.event}: ${moveText(m)}` + (a ? ` · ${who(a.player)} ${percent(a.chances[a.player])} after it` + (a.label ? ` · ${a.label}, better ${a.best}` : "") : ""),
      onclick: () => go(m.event) },
      moveText(m),
      a && a.label ? h("span", { class: `mark ${a.label}` }, LABEL_MARKS[a.label]) : null,
      a ? h("span", { class: "chance-after" }, percent(a.chances[a.player])) : null);
  };
  clear(movesEl, [...walks].map(([walk, turns]) => h("section", { class: "walk" }, h("h4", {}, `Walk ${walk}`),
    [...turns].map(([turn, moves]) => h("div", { class: "turn" }, h("span", { class: "turn-no" }, `${turn}.`), moves.map(moveButton))))));
}

// The game's result: every player's score and the winner (a tie for first shares the win, C18).
function showResult() {
  const el = document.getElementById("result");
  if (!game.over || !game.scores) { clear(el, `unfinished: ${game.moves.length} events`); return; }
  const best = Math.max(...game.scores);
  const winners = game.scores.map((s, p) => (s === best ? who(p) : null)).filter(Boolean);
  clear(el, h("strong", {}, winners.length > 1 ? `${winners.join(" and ")} share the win` : `${winners[0]} wins`),
    ` · ${game.scores.map((s, p) => `${who(p)} ${s} VP`).join(" · ")}`);
}

// The current move brought into view inside the move list only: the page itself does not scroll.
function scrollMoveIntoList(button) {
  const list = movesEl.getBoundingClientRect(), item = button.getBoundingClientRect();
  if (item.top < list.top) movesEl.scrollTop -= list.top - item.top + 8;
  else if (item.bottom > list.bottom) movesEl.scrollTop += item.bottom - list.bottom + 8;
}

async function go(index) {
  at = Math.max(0, Math.min(game.moves.length, index));
  if (chart) chart.cursor(at);
  for (const el of movesEl.querySelectorAll(".move.current")) el.classList.remove("current");
  const current = movesEl.querySelector(`.move[data-event="${at}"]`);
  if (current) { current.classList.add("current"); scrollMoveIntoList(current); }
  const move = game.moves[at];
  clear(document.getElementById("at-text"), move ? `before event ${at}: ${moveText(move)}` : `after the last event (${game.moves.length})`);
  const a = annotations.find((n) => n.event === at);
  clear(document.getElementById("info"), a ? `${who(a.player)} chose ${a.played}: ${percent(a.chances[a.player])} after it` +
    (a.label ? ` — ${a.label}, ${a.best} was better (${percent(a.best_win)} vs ${percent(a.played_win ?? 0)})` : a.best !== a.played ? ` (engine: ${a.best}, within noise)` : ", the engine's choice") : "");
  const ticket = ++shown;
  try {
    const data = await api("/api/view", { ...source, at });
    if (ticket === shown) renderBoard(board, data.view, { actions: false });
  } catch (e) { showError("errors", e); }
}

async function annotate() {
  const progress = document.getElementById("annotate-progress");
  // The server's default budget is the CLI's (refuge annotate's DEFAULT_ITERATIONS); ?iterations=N asks another.
  const asked = params.get("iterations") ? { iterations: Number(params.get("iterations")) } : {};
  try {
    const job = await api("/api/annotations", { ...source, ...asked });
    progress.hidden = false;
    const events = new EventSource(`/api/annotations/${job.id}/events`);
    const onData = (event) => {
      const data = JSON.parse(event.data);
      const r = data.result;
      if (r) {
        progress.max = Math.max(1, r.total); progress.value = r.done;
        clear(status, `${r.done}/${r.total} decisions at ${r.iterations_per_decision.toLocaleString()} iterations each`);
      }
      if (data.state === "queued") clear(status, `queued (${data.queue_position})`);
      if (!["done", "capped", "cancelled", "failed"].includes(data.state)) return;
      events.close();
      progress.hidden = true;
      if (data.state === "failed" || data.state === "cancelled") { clear(status, `${data.state} ${data.error || data.reason}`); return; }
      clear(status, `${r.annotations.length} decisions annotated at ${r.iterations_per_decision.toLocaleString()} iterations each` +
        (asked.iterations ? "" : ", the default of refuge annotate") + (data.state === "capped" ? " (time cap reached, not saved)" : "") +
        (r.saved ? `; saved in ${r.saved}` : "") + (r.save_error ? `; not saved: ${r.save_error}` : ""));
      showAnnotations({ decisions: r.annotations, players: r.players });
      go(at);
    };
    for (const state of ["queued", "running", "done", "capped", "cancelled", "failed"]) events.addEventListener(state, onData);
  } catch (e) { showError("errors", e); }
}

// An annotation (refuge annotate --json's document, or a finished job's) drawn: graph, marks in the
// move list, each player's accuracy and the labelled decisions below.
function showAnnotations(doc) {
  annotations = doc ? doc.decisions : [];
  chart = drawChart(document.getElementById("chart"), { annotations, moves: game.moves, players: game.players, names: game.names, onPick: go });
  renderMoves();
  document.getElementById("annotate").textContent = doc ? "Annotate again" : "Annotate";
  if (!doc) return;
  const labelled = annotations.filter((a) => a.label);
  clear(document.getElementById("labels"),
    h("div", { class: "scroll" }, h("table", { class: "summary-table" }, h("tr", {}, ["player", "accuracy", "inaccuracies", "mistakes", "blunders"].map((c) => h("th", {}, c))),
      doc.players.map((s) => h("tr", {}, h("td", {}, who(s.player)), h("td", {}, s.accuracy.toFixed(1)), h("td", {}, s.inaccuracies), h("td", {}, s.mistakes), h("td", {}, s.blunders))))),
    h("ul", {}, labelled.map((a) => h("li", {}, h("button", { type: "button", class: `link label ${a.label}`, dataset: { event: a.event }, onclick: () => go(a.event) },
      `${LABEL_MARKS[a.label]} event ${a.event} (walk ${a.walk}, turn ${a.turn}) ${who(a.player)}: ${a.played} — ${a.label}, better ${a.best} (${percent(a.played_win ?? 0)} → ${percent(a.best_win)})`)))));
}

document.addEventListener("keydown", (e) => {
  if (!game || ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
  if (e.key === "ArrowLeft") { e.preventDefault(); go(at - 1); }
  if (e.key === "ArrowRight") { e.preventDefault(); go(at + 1); }
});
document.getElementById("prev").addEventListener("click", () => go(at - 1));
document.getElementById("next").addEventListener("click", () => go(at + 1));
document.getElementById("annotate").addEventListener("click", annotate);

// A dropped file: refuge annotate --json's output for the game shown (checked and saved beside it
// by the server), or a game record to review.
function dropped(data) {
  if (data && data.format === ANNOTATION_FORMAT) {
    if (!game) { showError("errors", new Error("open the annotated game first, then its annotation")); return; }
    open({ ...source, annotation: data }).catch((e) => showError("errors", e));
  } else open({ record: data }).catch((e) => showError("errors", e));
}

async function main() {
  await loadCatalogue();
  const files = await api("/api/games");
  const select = document.getElementById("file-select");
  for (const f of files.files) select.appendChild(h("option", { value: f.name }, f.name));
  select.addEventListener("change", () => select.value && open({ file: select.value }).catch((e) => showError("errors", e)));
  fileDrop(document.body, document.getElementById("upload"), dropped);
  if (params.get("file")) { select.value = params.get("file"); await open({ file: params.get("file") }); }
  else if (params.get("tracked")) await open({ tracked: params.get("tracked") });
  else if (params.get("upload") && sessionStorage.getItem("refuge-record")) await open({ record: JSON.parse(sessionStorage.getItem("refuge-record")) });
}

main().catch((e) => showError("errors", e));
