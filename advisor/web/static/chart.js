// The win-chance chart as hand-written SVG: one line per player, walk boundaries, labelled markers.
import { clear, h } from "./common.js";

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
const LABEL_COLOURS = { inaccuracy: "#e6b800", mistake: "#ff7f0e", blunder: "#c00000" };

export function drawChart(el, { annotations, moves, players, names, onPick }) {
  const width = 720, height = 220, left = 36, right = 8, top = 10, bottom = 24;
  const last = Math.max(1, moves.length);
  const x = (event) => left + ((width - left - right) * event) / last;
  const y = (p) => top + (height - top - bottom) * (1 - p);
  const svg = h("svg", { viewBox: `0 0 ${width} ${height}`, class: "win-chart", role: "img", "aria-label": "win chance per player" });
  for (const p of [0, 0.5, 1]) {
    svg.appendChild(h("line", { x1: left, x2: width - right, y1: y(p), y2: y(p), class: "grid" }));
    svg.appendChild(h("text", { x: 2, y: y(p) + 4, class: "axis" }, `${p * 100}%`));
  }
  let walk = 0;
  for (const move of moves) {
    if (move.walk !== walk) {
      walk = move.walk;
      svg.appendChild(h("line", { x1: x(move.event), x2: x(move.event), y1: top, y2: height - bottom, class: "walk" }));
      svg.appendChild(h("text", { x: x(move.event) + 3, y: height - 8, class: "axis" }, `walk ${walk}`));
    }
  }
  const value = (a) => (a.played_win === null ? a.best_win : a.played_win);
  for (let player = 0; player < players; player++) {
    const mine = annotations.filter((a) => a.player === player);
    if (!mine.length) continue;
    svg.appendChild(h("polyline", { points: mine.map((a) => `${x(a.event)},${y(value(a))}`).join(" "), class: "curve",
      stroke: COLOURS[player % 4], fill: "none" }));
  }
  for (const a of annotations) {
    const labelled = Boolean(a.label);
    const marker = h("circle", { cx: x(a.event), cy: y(value(a)), r: labelled ? 6 : 3, class: `point ${labelled ? "marker " + a.label : ""}`,
      fill: labelled ? LABEL_COLOURS[a.label] : COLOURS[a.player % 4], dataset: { event: a.event },
      onclick: () => onPick(a.event) },
      h("title", {}, `event ${a.event}: ${names[a.player] || "player " + a.player} played ${a.played}` +
        (a.label ? ` — ${a.label}, better ${a.best}` : "")));
    svg.appendChild(marker);
  }
  const legend = h("div", { class: "legend" }, Array.from({ length: players }, (_, p) =>
    h("span", { class: "key", dataset: { colour: p } }, `■ ${names[p] || "player " + p}`)));
  legend.querySelectorAll(".key").forEach((k, p) => { k.style.color = COLOURS[p % 4]; });
  clear(el, svg, legend);
}
