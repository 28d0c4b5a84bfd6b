// The win-chance graph as hand-written SVG: at every annotated moment each player's win chance from
// the same search (the lines sum to 100 %), walk boundaries, a cursor on the current event, and the
// labelled decisions marked as lichess does (?! ? ??) in black and white, never on top of each other.
import { PLAYER_COLOURS, clear, h } from "./common.js";

export const LABEL_MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const SIZE = { width: 720, height: 200, left: 34, right: 8, top: 12, bottom: 20, mark: 7 };

// Each mark's centre: on its point (inside the plot), else the nearest place above or below it
// that touches no mark placed before it.
export function placeMarks(points, { top, bottom, mark }) {
  const gap = 2 * mark + 1, placed = [];
  const shifts = [0, ...Array.from({ length: 30 }, (_, i) => (i % 2 ? 1 : -1) * gap * Math.ceil((i + 1) / 2))];
  for (const p of points) {
    const base = Math.max(top + mark, Math.min(bottom - mark, p.y));
    const free = (y) => y >= top + mark && y <= bottom - mark && placed.every((q) => Math.hypot(q.x - p.x, q.y - y) >= gap);
    const shift = shifts.find((d) => free(base + d));
    placed.push({ ...p, y: base + (shift ?? 0) });
  }
  return placed;
}

export function drawChart(el, { annotations, moves, players, names, onPick }) {
  const { width, height, left, right, top, bottom, mark } = SIZE;
  const last = Math.max(1, moves.length);
  const x = (event) => left + ((width - left - right) * event) / last;
  const y = (p) => top + (height - top - bottom) * (1 - p);
  const name = (seat) => names[seat] || `player ${seat}`;
  const svg = h("svg", { viewBox: `0 0 ${width} ${height}`, class: "win-chart", role: "img",
    "aria-label": "every player's win chance at each annotated decision; click to go there" });
  svg.appendChild(h("rect", { x: left, y: top, width: width - left - right, height: height - top - bottom, class: "plot" }));
  for (const p of [0, 0.5, 1]) {
    svg.appendChild(h("line", { x1: left, x2: width - right, y1: y(p), y2: y(p), class: "grid" }));
    svg.appendChild(h("text", { x: 2, y: y(p) + 4, class: "axis" }, `${p * 100}%`));
  }
  let walk = 0;
  for (const move of moves) {
    if (move.walk === walk) continue;
    walk = move.walk;
    svg.appendChild(h("line", { x1: x(move.event), x2: x(move.event), y1: top, y2: height - bottom, class: "walk" }));
    svg.appendChild(h("text", { x: x(move.event) + 3, y: height - 6, class: "axis" }, `walk ${walk}`));
  }
  const ordered = [...annotations].sort((a, b) => a.event - b.event);
  if (!ordered.length) svg.appendChild(h("text", { x: width / 2, y: height / 2, class: "empty", "text-anchor": "middle" }, "Annotate to draw every player's win chance"));
  for (let player = 0; player < players; player++) {
    const points = ordered.filter((a) => a.chances && a.chances.length > player);
    if (!points.length) continue;
    svg.appendChild(h("polyline", { points: points.map((a) => `${x(a.event)},${y(a.chances[player])}`).join(" "), class: "curve",
      stroke: PLAYER_COLOURS[player % PLAYER_COLOURS.length], fill: "none", dataset: { player } },
      h("title", {}, `${name(player)}: win chance`)));
  }
  const tip = (a) => `event ${a.event}: ${name(a.player)} chose ${a.played}` + (a.label ? ` — ${a.label}, better ${a.best}` : "") +
    ` · chances ${a.chances.map((c, p) => `${name(p)} ${(100 * c).toFixed(0)}%`).join(", ")}`;
  for (const a of ordered.filter((a) => !a.label)) {
    svg.appendChild(h("circle", { cx: x(a.event), cy: y(a.chances[a.player]), r: 2.5, class: "point",
      fill: PLAYER_COLOURS[a.player % PLAYER_COLOURS.length], dataset: { event: a.event } }, h("title", {}, tip(a))));
  }
  const labelled = ordered.filter((a) => a.label).map((a) => ({ a, x: x(a.event), y: y(a.chances[a.player]) }));
  for (const m of placeMarks(labelled, { top, bottom: height - bottom, mark })) {
    const moved = Math.abs(m.y - y(m.a.chances[m.a.player])) > 0.5;
    svg.appendChild(h("g", { class: `marker ${m.a.label}`, dataset: { event: m.a.event } },
      moved ? h("line", { x1: m.x, x2: m.x, y1: y(m.a.chances[m.a.player]), y2: m.y, class: "tie" }) : null,
      h("circle", { cx: m.x, cy: m.y, r: mark }),
      h("text", { x: m.x, y: m.y + 3.5, "text-anchor": "middle" }, LABEL_MARKS[m.a.label]),
      h("title", {}, tip(m.a))));
  }
  const cursor = h("line", { class: "cursor", id: "chart-cursor", x1: x(0), x2: x(0), y1: top, y2: height - bottom });
  svg.appendChild(cursor);
  // A click anywhere on the graph goes to the nearest event (a mark: its own event).
  svg.addEventListener("click", (e) => {
    const marked = e.target.closest && e.target.closest("[data-event]");
    if (marked) { onPick(Number(marked.dataset.event)); return; }
    const box = svg.getBoundingClientRect();
    const at = Math.round((((e.clientX - box.left) * width) / box.width - left) * last / (width - left - right));
    onPick(Math.max(0, Math.min(moves.length, at)));
  });
  const legend = h("div", { class: "legend" }, Array.from({ length: players }, (_, p) => {
    const key = h("span", { class: "key", dataset: { colour: p } }, `━ ${name(p)}`);
    key.style.color = PLAYER_COLOURS[p % PLAYER_COLOURS.length];
    return key;
  }), Object.entries(LABEL_MARKS).map(([label, m]) => h("span", { class: `key mark ${label}` }, `${m} ${label}`)));
  clear(el, svg, legend);
  return { cursor: (event) => { cursor.setAttribute("x1", x(event)); cursor.setAttribute("x2", x(event)); } };
}
