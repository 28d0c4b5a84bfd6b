// The board page: a position (example, file, upload or editor), moves played on it, live analysis.
import { AnalysisPanel } from "./analysis.js";
import { api, clear, download, drawPicker, h, loadCatalogue, moveText, params, playerLabel, renderBoard, showError } from "./common.js";

let start = null;   // where the line starts: {example}, {file}, {position} or {record}
let events = [];    // moves played on the board since
let movers = [];    // for each of those played here: {chance, player, drawer} (who moved, whose draw)
let view = null;
let held = [];      // [seat, action]: simultaneous choices tapped before the seat the engine resolves next
const board = document.getElementById("board");
const panel = new AnalysisPanel(document.getElementById("analysis"), {
  onPlay: (action) => play(action),
  playerName: (seat) => (view ? playerLabel(view, seat) : `player ${seat}`),
  onResult: markOptions,
  factsEl: document.getElementById("facts"),
});

// Each option button of the seat analysed shows that player's win chance if it is played (the
// search's, as in the options table; * exact), the best one marked.
function markOptions(report) {
  for (const old of document.querySelectorAll("#decision .action .win")) old.remove();
  for (const button of document.querySelectorAll("#decision .action.best")) button.classList.remove("best");
  if (!report) return;
  for (const option of report.options) {
    const button = document.querySelector(`#decision .action[data-seat="${report.player}"][data-action="${CSS.escape(option.action)}"]`);
    if (!button) continue;
    const win = `${(100 * option.win_probability).toFixed(0)}%${option.exact ? "*" : ""}`;
    button.appendChild(h("span", { class: "win", title: `win chance if played: ${(100 * option.win_probability).toFixed(1)}%` }, win));
    if (option.action === report.best) button.classList.add("best");
  }
}

function startFromPage() {
  if (params.get("example")) return { example: params.get("example") };
  if (params.get("file")) return { file: params.get("file"), ...(params.get("at") ? { at: Number(params.get("at")) } : {}) };
  const stored = sessionStorage.getItem("refuge-position");
  if (stored) return { position: JSON.parse(stored) };
  return { example: "opening-2p" };
}

async function refresh() {
  showError("errors", null);
  let data;
  try {
    data = await api("/api/view", { ...start, events });
  } catch (e) {
    panel.setLine(null, false);
    // An uploaded position that is not valid opens in the editor, beside its problems.
    if (start.position && !events.length && e.status >= 400 && e.status < 500) { location.href = "/editor?from=board&invalid=1"; return; }
    throw e;
  }
  view = data.view;
  const next = held.findIndex(([seat]) => seat === view.decision.player);
  if (next >= 0 && view.decision.kind === "decision") {  // its turn has come: apply it, in seat order
    movers = [...movers.slice(0, events.length), mover(view)];
    events = [...events, held.splice(next, 1)[0][1]];
    return refresh();
  }
  const chosen = new Set(held.map(([seat]) => seat));
  for (const seat of chosen) view.players[seat].choice = "hidden";
  const seats = view.seats.filter((e) => !chosen.has(e.seat));
  renderBoard(board, view, { onAction: choose, seats, chancePicker: (v) => drawPicker(v, play), top: document.getElementById("decision") });
  const said = events.map((action, i) => (movers[i] ? moveText({ ...movers[i], action }, (seat) => playerLabel(view, seat)) : action));
  clear(document.getElementById("line-text"), events.length ? `moves: ${said.join(" · ")}` : (data.title || ""));
  panel.setLine({ ...start, events }, view.decision.kind === "decision");
}

// A tap on a seat's choice: played now if the engine resolves that seat next, else held until then.
function choose(action, seat) {
  if (seat === undefined || seat === view.decision.player) return play(action);
  held.push([seat, action]);
  return refresh().catch((e) => showError("errors", e));
}

// Who makes the next event at `v`: the deciding seat, or whose draw a chance event is.
function mover(v) {
  return { chance: v.decision.kind === "chance", player: v.decision.player, drawer: v.decision.drawer };
}

async function play(action) {
  try {
    const body = { ...start, events };
    const data = await api("/api/apply", action === null ? { ...body, sample: Math.floor(Math.random() * 2 ** 31) } : { ...body, action });
    movers = [...movers.slice(0, events.length), mover(view)];
    events = data.events;
    await refresh();
  } catch (e) { showError("errors", e); }
}

document.getElementById("back").addEventListener("click", () => { if (held.length) held.pop(); else events.pop(); refresh().catch((e) => showError("errors", e)); });
document.getElementById("reset").addEventListener("click", () => { events = []; movers = []; held = []; refresh().catch((e) => showError("errors", e)); });
document.getElementById("export").addEventListener("click", async () => {
  try { download("position.json", JSON.stringify(await api("/api/export", { ...start, events }), null, 2)); } catch (e) { showError("errors", e); }
});
document.getElementById("edit").addEventListener("click", async () => {
  try {
    sessionStorage.setItem("refuge-position", JSON.stringify(await api("/api/export", { ...start, events })));
    location.href = "/editor?from=board";
  } catch (e) { showError("errors", e); }
});

async function main() {
  await loadCatalogue();
  start = startFromPage();
  await refresh();
}

main().catch((e) => showError("errors", e));
