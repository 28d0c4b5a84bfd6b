// Game review: the move list by walk and turn, ←/→ to step, the board follows; Annotate → chart.
import { drawChart } from "./chart.js";
import { api, clear, fileDrop, h, loadCatalogue, moveText as eventText, params, renderBoard, showError } from "./common.js";

let source = null;
let game = null;
let at = 0;
let annotations = [];
const board = document.getElementById("board");
const movesEl = document.getElementById("moves");

const who = (player) => (player === null ? "chance" : game.names[player] || `player ${player}`);
const moveText = (m) => eventText(m, who);

async function open(newSource) {
  source = newSource;
  showError("errors", null);
  game = await api("/api/review", source);
  annotations = [];
  clear(document.getElementById("chart"));
  clear(document.getElementById("labels"));
  renderMoves();
  showResult();
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
        title: `event ${m.event}: ${moveText(m)}`, onclick: () => go(m.event) }, moveText(m))))))));
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
  try {
    const data = await api("/api/view", { ...source, at });
    renderBoard(board, data.view, { actions: false });
  } catch (e) { showError("errors", e); }
  for (const el of movesEl.querySelectorAll(".move.current")) el.classList.remove("current");
  const current = movesEl.querySelector(`.move[data-event="${at}"]`);
  if (current) { current.classList.add("current"); scrollMoveIntoList(current); }
  const move = game.moves[at];
  clear(document.getElementById("at-text"), move ? `before event ${at}: ${moveText(move)}` : `after the last event (${game.moves.length})`);
  const note = annotations.find((a) => a.event === at);
  clear(document.getElementById("info"), note ? `${who(note.player)} played ${note.played}` +
    (note.label ? ` — ${note.label}: ${note.best} was better (${(100 * note.best_win).toFixed(0)}% vs ${(100 * (note.played_win ?? 0)).toFixed(0)}%)` : " — fine") : "");
}

async function annotate() {
  const progress = document.getElementById("annotate-progress");
  const status = document.getElementById("annotate-status");
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
      if (["done", "capped", "cancelled", "failed"].includes(data.state)) {
        events.close();
        if (data.state === "failed" || data.state === "cancelled") { clear(status, `${data.state} ${data.error || data.reason}`); return; }
        annotations = r.annotations;
        clear(status, `${annotations.length} decisions annotated at ${r.iterations_per_decision.toLocaleString()} iterations each` +
          (asked.iterations ? "" : ", the default of refuge annotate") + (data.state === "capped" ? " (time cap reached)" : ""));
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
