// Following a game at the table: tap each event, undo, ask for advice; the server saves every event
// before the game changes (it is `refuge track`'s session). In a simultaneous step every seat still
// to choose has its own row of choices, tapped in any order; at a chance event every outcome is offered.
import { AnalysisPanel } from "./analysis.js";
import { api, clear, drawPicker, h, loadCatalogue, moveText, params, playerLabel, renderBoard, say, showError } from "./common.js";

let game = null;
const board = document.getElementById("board");
const panel = new AnalysisPanel(document.getElementById("analysis"), {
  playerName: (seat) => (game ? playerLabel(game.view, seat) : `player ${seat}`),
});

function show(data) {
  game = data;
  document.getElementById("start").hidden = true;
  document.getElementById("game").hidden = false;
  renderBoard(board, game.view, { onAction: send, seats: game.expected, chancePicker: (v) => drawPicker(v, send) });
  const taps = board.querySelector("section.actions");  // at the table the next tap comes first, under the summary
  if (taps) board.insertBefore(taps, board.children[1]);
  const events = game.record.events;
  clear(document.getElementById("saved"), `${events.length} events, saved as ${game.file}`);
  document.getElementById("download").setAttribute("href", `/api/tracked/${encodeURIComponent(game.id)}/download`);
  clear(document.getElementById("moves"), h("h3", {}, "Events"),
    h("ol", { start: Math.max(0, events.length - 12) }, game.moves.slice(-12).map((m) =>
      h("li", { class: m.chance ? "chance" : "" }, `${m.walk}.${m.turn} ` + moveText(m, (seat) => playerLabel(game.view, seat))))));
  if (game.said && game.said.length) say(game.said.join(" · "));
  panel.setLine({ tracked: game.id }, game.view.decision.kind === "decision");  // the seat the engine resolves next
}

// action null: Sample (a random chance outcome); seat: whose choice it is in a simultaneous step.
async function send(action, seat) {
  try {
    const body = action === null ? { sample: Math.floor(Math.random() * 2 ** 31) } : { action, ...(seat === undefined ? {} : { seat }) };
    show(await api(`/api/tracked/${encodeURIComponent(game.id)}/events`, body));
    showError("errors", null);
  } catch (e) { showError("errors", e); }
}

document.getElementById("undo").addEventListener("click", async () => {
  try { show(await api(`/api/tracked/${encodeURIComponent(game.id)}/undo`, {})); showError("errors", null); } catch (e) { showError("errors", e); }
});
document.getElementById("advise").addEventListener("click", () => panel.start());
document.getElementById("create").addEventListener("click", async () => {
  const names = document.getElementById("names").value.split(",").map((n) => n.trim()).filter(Boolean);
  const players = Number(document.getElementById("players").value);
  try {
    const data = await api("/api/tracked", { players, route: document.getElementById("route").value, names: names.length === players ? names : [] });
    history.replaceState(null, "", `/track?id=${encodeURIComponent(data.id)}`);
    show(data);
  } catch (e) { showError("errors", e); }
});

async function main() {
  const catalogue = await loadCatalogue();
  const routes = document.getElementById("route");
  for (const r of Object.keys(catalogue.routes)) routes.appendChild(h("option", { value: r }, r));
  const players = document.getElementById("players");
  clear(players, catalogue.player_counts.map((n) => h("option", { value: n }, n)));
  if (params.get("id")) { show(await api(`/api/tracked/${encodeURIComponent(params.get("id"))}`)); return; }
  const listing = await api("/api/tracked");
  clear(document.getElementById("tracked-list"), listing.games.map((g) =>
    h("li", {}, h("a", { href: `/track?id=${encodeURIComponent(g.id)}` }, g.name), " · ", h("a", { href: `/review?tracked=${encodeURIComponent(g.id)}` }, "review"))));
}

main().catch((e) => showError("errors", e));
