// The insights page: the JSON of `refuge insights report --json`, shipped with refuge or for a corpus file in the games folder.
import { api, clear, h, params, showError } from "./common.js";

const pct = (x) => `${(100 * x).toFixed(1)} %`;
const signed = (x, digits = 3) => (x >= 0 ? "+" : "") + x.toFixed(digits);
const ci = (c, f = (x) => signed(x)) => (c ? `[${f(c[0])}, ${f(c[1])}]` : "n/a");
const ciPct = (c) => (c ? `[${(100 * c[0]).toFixed(1)}, ${(100 * c[1]).toFixed(1)}] %` : "n/a");

function table(el, headers, rows) {
  clear(el, h("thead", {}, h("tr", {}, headers.map((x) => h("th", {}, x)))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((x) => (x instanceof Node ? h("td", {}, x) : h("td", {}, x)))))));
}

function buysChart(el, buys, walk) {
  const rows = buys.filter((b) => b.players === "all" && b.walks === walk && b.ci95);
  const routes = [...new Set(rows.map((b) => b.route))].sort();
  const width = 340, line = 18, left = 160;
  const charts = routes.map((route) => {
    const here = rows.filter((b) => b.route === route).sort((a, b) => b.win_effect - a.win_effect);
    const lo = Math.min(-0.2, ...here.map((b) => b.ci95[0])), hi = Math.max(0.2, ...here.map((b) => b.ci95[1]));
    const x = (v) => left + ((v - lo) / (hi - lo)) * (width - left - 10);
    const height = here.length * line + 30;
    const svg = h("svg", { class: "buys-chart", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `buy effects on ${route}` },
      h("text", { x: left, y: 12, "font-size": 12, "font-weight": "bold" }, route),
      h("line", { x1: x(0), x2: x(0), y1: 16, y2: height - 12, stroke: "#999" }),
      here.map((b, i) => {
        const y = 26 + i * line;
        return h("g", {}, h("title", {}, `${b.tile}: ${signed(b.win_effect)} ${ci(b.ci95)}, n ${b.n}`),
          h("text", { x: left - 6, y: y + 4, "font-size": 11, "text-anchor": "end" }, `${b.tile} (${b.n})`),
          h("line", { x1: x(b.ci95[0]), x2: x(b.ci95[1]), y1: y, y2: y, stroke: "#2a6f97", "stroke-width": 2 }),
          h("circle", { cx: x(b.win_effect), cy: y, r: 4, fill: "#2a6f97" }));
      }),
      h("text", { x: x(lo), y: height - 2, "font-size": 10 }, signed(lo, 2)),
      h("text", { x: x(hi), y: height - 2, "font-size": 10, "text-anchor": "end" }, signed(hi, 2)));
    svg.style.verticalAlign = "top";
    return svg;
  });
  clear(el, charts);
}

function ranking(el, ranks, walk) {
  const here = ranks.filter((r) => r.players === "all" && r.walks === walk);
  clear(el, here.map((r) => h("p", { class: "ranking" }, h("strong", {}, `${r.route}: `),
    r.order.map((t) => `${t.tile} ${signed(t.win_effect)} (n ${t.n})`).join(" › "),
    r.pairs.length ? ` — ${r.pairs_resolved} of ${r.pairs.length} pairs told apart (${Math.round(100 * r.share_resolved)} %)` : "")));
}

function returnMap(el, cells) {
  const all = cells.filter((c) => c.walk === "all" && c.n >= 10);
  const bins = [...new Set(all.map((c) => c.path_paws))].sort((a, b) => parseInt(a) - parseInt(b));
  const keys = [...new Set(all.map((c) => `${c.players}|${c.storms_to_hit}`))].sort();
  const rows = keys.map((key) => {
    const [players, storms] = key.split("|");
    return [`${players}p`, storms, ...bins.map((bin) => {
      const c = all.find((x) => String(x.players) === players && String(x.storms_to_hit) === storms && x.path_paws === bin);
      if (!c) return "";
      const cell = h("span", { class: "rate", title: `${pct(c.return_rate)} ${ciPct(c.ci95)}, n ${c.n}` }, `${Math.round(100 * c.return_rate)} %`);
      cell.style.background = `rgba(42, 111, 151, ${c.return_rate.toFixed(2)})`;
      cell.style.color = c.return_rate > 0.5 ? "white" : "black";
      return cell;
    })];
  });
  table(el, ["players", "Storms to hit", ...bins.map((b) => `animals ${b}`)], rows);
}

function render(report) {
  clear(document.getElementById("summary"), `${report.games} games in ${report.name}.`);
  table(document.getElementById("corpora"), ["agent", "players", "route", "seed", "games", "counterfactuals", "CPU s / 1,000 games"],
    report.corpora.map((c) => [c.agent, c.players, c.route, c.seed, c.games, c.counterfactuals, c.cpu_seconds_per_1000_games]));
  const walkPicker = document.getElementById("buys-walk");
  const buys = () => {
    const walk = walkPicker.value;
    ranking(document.getElementById("ranking"), report.ranking || [], walk);
    buysChart(document.getElementById("buys-chart"), report.buys, walk);
    table(document.getElementById("buys"), ["agent", "route", "tile", "players", "walks", "n", "win effect", "95 % CI", "score effect", "agent chose it"],
      report.buys.filter((b) => b.players === "all" && b.walks === walk).map((b) => [b.agent, b.route, b.tile, b.players, b.walks, b.n, signed(b.win_effect), ci(b.ci95), signed(b.score_effect, 1), pct(b.agent_bought_it)]));
  };
  walkPicker.onchange = buys;
  buys();
  const players = report.players || { buys: [], first_seat: [] };
  const compared = players.buys.filter((b) => b.tile !== "any" && b.walks === "all");
  const counts = new Set(report.corpora.map((c) => c.players));
  clear(document.getElementById("players"), [...players.first_seat.map((s) => h("p", {},
    `${s.players} players: the first seat wins ${signed(100 * s.edge, 1)} points over a fair share [${signed(100 * s.ci95[0], 1)}, ${signed(100 * s.ci95[1], 1)}] (${s.n} games)`)),
    ...(compared.length ? [] : [h("p", { id: "players-none" }, counts.size < 2
      ? `No buy to compare across player counts: every game here has ${[...counts].join(", ")} players.`
      : "No buy has enough games at two player counts to compare.")])]);
  const buysTable = document.getElementById("players-buys");
  buysTable.hidden = !compared.length;
  table(buysTable, ["route", "tile", "walks", "players", "effect (n)", "players", "effect (n)", "difference", "95 % CI", "told apart"],
    compared.map((b) => [b.route, b.tile, b.walks, b.fewer, `${signed(b.effect_fewer)} (${b.n_fewer})`,
      b.more, `${signed(b.effect_more)} (${b.n_more})`, signed(b.difference), ci(b.ci95), b.resolved ? "yes" : "no"]));
  clear(document.getElementById("rules"), report.returns.rules.map((r) => h("div", { class: "rule" },
    h("p", {}, h("strong", {}, `${r.agent}: ${r.rule}`)),
    h("ul", {},
      h("li", {}, `agrees with the agent at ${pct(r.agreement)} ${ciPct(r.agreement_ci95)} of ${r.n} decisions (never going home: ${pct(r.never_return_agreement)})`),
      h("li", {}, `following it instead costs ${signed(r.rule_cost_per_decision, 4)} win share a decision ${ci(r.rule_cost_per_decision_ci95, (x) => signed(x, 4))} (${r.rule_cost_n} paired continuations), ${signed(r.rule_cost_per_game, 4)} a game ${ci(r.rule_cost_per_game_ci95, (x) => signed(x, 4))}`),
      h("li", {}, `last walk, ${r.last_walk_exact.n} decisions solved exactly: the agent picks a best option ${pct(r.last_walk_exact.agent_best)} ${ciPct(r.last_walk_exact.agent_best_ci95)}, the rule ${pct(r.last_walk_exact.rule_best)} ${ciPct(r.last_walk_exact.rule_best_ci95)}`)))));
  returnMap(document.getElementById("return-map"), report.returns.map);
  table(document.getElementById("seats"), ["agent", "players", "seat", "games", "win share", "95 % CI", "fair share"],
    report.seats.filter((s) => s.route === "all").map((s) => [s.agent, s.players, s.seat, s.n, pct(s.win_share), ciPct(s.ci95), pct(s.fair_share)]));
  table(document.getElementById("lengths"), ["agent", "players", "route", "games", "turns (mean)", "turns 10–90 %", "score (mean)", "score 10–90 %", "winner's score", "median margin"],
    report.lengths.map((x) => [x.agent, x.players, x.route, x.turns.n, x.turns.mean.toFixed(1), `${x.turns.p10}–${x.turns.p90}`, x.score.mean.toFixed(1), `${x.score.p10}–${x.score.p90}`, x.winner_score.mean.toFixed(1), x.margin.median]));
  const picker = document.getElementById("explorer-table");
  const tables = [...new Set(report.explorer.map((e) => `${e.players}p ${e.route}`))].sort();
  clear(picker, tables.map((t) => h("option", {}, t)));
  const explorer = () => {
    const min = Number(document.getElementById("explorer-min").value) || 1;
    table(document.getElementById("explorer"), ["first walk's buys", "seats", "win share", "Wilson 95 %", "mean score"],
      report.explorer.filter((e) => `${e.players}p ${e.route}` === picker.value && e.n >= min)
        .map((e) => [e.sequence.join(" → ") || "(any)", e.n, pct(e.win_share), ciPct(e.ci95), e.mean_score.toFixed(1)]));
  };
  picker.onchange = explorer;
  document.getElementById("explorer-min").oninput = explorer;
  explorer();
}

async function main() {
  const { files } = await api("/api/insights");
  const select = document.getElementById("file");
  clear(select, files.map((f) => h("option", { value: f.name }, f.published ? "the summary shipped with refuge" : f.name)));
  if (!files.length) {
    showError("errors", "no summary shipped and no corpus file (*.sqlite) in the games folder: refuge insights run --db GAMES/corpus.sqlite …");
    return;
  }
  const wanted = params.get("file");
  if (wanted && files.some((f) => f.name === wanted)) select.value = wanted;
  const load = async () => {
    showError("errors", null);
    try { render(await api(`/api/insights/${encodeURIComponent(select.value)}`)); } catch (e) { showError("errors", e); }
  };
  select.onchange = load;
  await load();
}

main().catch((e) => showError("errors", e));
