// The win-chance graph as hand-written SVG: at every annotated moment each player's win chance from
// the same search (the lines sum to 100 %), walk boundaries, and the labelled decisions marked as
// lichess does (?! ? ??) in black and white, apart from the players' colours.
import { PLAYER_COLOURS, clear, h } from "./common.js";

export const LABEL_MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };

export function drawChart(el, { annotations, moves, players, names, onPick }) {
  const width = 720, height = 230, left = 36, right = 8, top = 16, bottom = 24;
  const last = Math.max(1, moves.length);
  const x = (event) => left + ((width - left - right) * event) / last;
  const y = (p) => top + (height - top - bottom) * (1 - p);
  const name = (seat) => names[seat] || `player ${seat}`;
  const svg = h("svg", { viewBox: `0 0 ${width} ${height}`, class: "win-chart", role: "img",
    "aria-label": "every player's win chance at each annotated decision" });
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
  const ordered = [...annotations].sort((a, b) => a.event - b.event);
  for (let player = 0; player < players; player++) {
    const points = ordered.filter((a) => a.chances && a.chances.length > player);
    if (!points.length) continue;
    svg.appendChild(h("polyline", { points: points.map((a) => `${x(a.event)},${y(a.chances[player])}`).join(" "), class: "curve",
      stroke: PLAYER_COLOURS[player % PLAYER_COLOURS.length], fill: "none", dataset: { player } },
      h("title", {}, `${name(player)}: win chance`)));
  }
  for (const a of ordered) {
    const mine = a.chances ? a.chances[a.player] : a.best_win;
    const tip = `event ${a.event}: ${name(a.player)} played ${a.played}` + (a.label ? ` — ${a.label}, better ${a.best}` : "") +
      ` · chances ${a.chances.map((c, p) => `${name(p)} ${(100 * c).toFixed(0)}%`).join(", ")}`;
    if (!a.label) {
      svg.appendChild(h("circle", { cx: x(a.event), cy: y(mine), r: 2.5, class: "point", fill: PLAYER_COLOURS[a.player % PLAYER_COLOURS.length],
        dataset: { event: a.event }, onclick: () => onPick(a.event) }, h("title", {}, tip)));
      continue;
    }
    svg.appendChild(h("g", { class: `marker ${a.label}`, dataset: { event: a.event }, onclick: () => onPick(a.event) },
      h("circle", { cx: x(a.event), cy: y(mine), r: 7 }),
      h("text", { x: x(a.event), y: y(mine) + 3.5, "text-anchor": "middle" }, LABEL_MARKS[a.label]),
      h("title", {}, tip)));
  }
  const legend = h("div", { class: "legend" }, Array.from({ length: players }, (_, p) => {
    const key = h("span", { class: "key", dataset: { colour: p } }, `━ ${name(p)}`);
    key.style.color = PLAYER_COLOURS[p % PLAYER_COLOURS.length];
    return key;
  }), Object.entries(LABEL_MARKS).map(([label, mark]) => h("span", { class: `key mark ${label}` }, `${mark} ${label}`)));
  clear(el, svg, legend);
}
