// The live analysis panel: an engine switch that stays on (as lichess's; remembered in this
// browser), a search of each decision the line reaches, streamed (server-sent events), Stop/Continue.
import { PLAYER_COLOURS, api, clear, h, showError } from "./common.js";

const ENGINE_KEY = "refuge-engine";
export const engineOn = () => localStorage.getItem(ENGINE_KEY) !== "off";  // on unless switched off

export class AnalysisPanel {
  // onResult(report | null): each report (null when the line changes), for the option buttons;
  // factsEl: where the return-or-draw facts go (beside the decision), else the panel's own body.
  constructor(el, { onPlay, playerName, onResult, factsEl }) {
    this.el = el;
    this.onPlay = onPlay;
    this.onResult = onResult || (() => {});
    this.factsEl = factsEl || null;
    this.playerName = playerName || ((seat) => `player ${seat}`);
    this.job = null;
    this.source = null;
    this.line = null;
    this.canAnalyse = false;
    this.status = h("span", { id: "analysis-status", class: "status" }, "idle");
    this.rate = h("span", { id: "analysis-rate", class: "rate" }, "");
    this.engine = h("input", { type: "checkbox", id: "engine", role: "switch", onchange: () => this.switched() });
    this.engine.checked = engineOn();
    this.stopButton = h("button", { type: "button", id: "stop", disabled: true, onclick: () => this.stop() }, "Stop");
    this.continueButton = h("button", { type: "button", id: "continue", disabled: true, onclick: () => this.resume() }, "Continue");
    this.body = h("div", { class: "analysis-body" });
    this.errors = h("div", { class: "errors" });
    clear(el, h("div", { class: "controls" }, h("label", { class: "switch", title: "analyse every decision the board reaches (stays on)" }, this.engine, h("span", {}, "Engine")),
      this.stopButton, this.continueButton, this.status, this.rate),
      this.errors, this.body);
    window.addEventListener("pagehide", () => this.close());
  }

  switched() {
    localStorage.setItem(ENGINE_KEY, this.engine.checked ? "on" : "off");
    if (this.engine.checked) this.start();
    else { this.close(); this.idle(); }
  }

  setLine(lineBody, canAnalyse) {
    this.line = lineBody;
    this.canAnalyse = canAnalyse;
    this.close();
    this.idle();
    if (canAnalyse && this.engine.checked) this.start();
  }

  idle() {
    this.stopButton.disabled = this.continueButton.disabled = true;
    clear(this.body);
    if (this.factsEl) clear(this.factsEl);
    clear(this.status, !this.canAnalyse ? "no decision here" : this.engine.checked ? "starting…" : "engine off");
    clear(this.rate);
    this.onResult(null);
  }

  async start() {
    this.close();
    if (!this.line || !this.canAnalyse) return;
    showError(this.errors, null);
    const line = this.line;
    try {
      const job = await api("/api/analyses", line);
      if (line !== this.line) { fetch(`/api/analyses/${job.id}`, { method: "DELETE", keepalive: true }).catch(() => {}); return; }
      this.job = job;
    } catch (e) { showError(this.errors, e); return; }
    this.listen();
  }

  listen() {
    this.source = new EventSource(`/api/analyses/${encodeURIComponent(this.job.id)}/events`);
    const onData = (event) => this.render(JSON.parse(event.data));
    for (const state of ["queued", "running", "paused", "capped", "cancelled", "failed", "done"]) {
      this.source.addEventListener(state, onData);
    }
    this.source.onerror = () => { if (this.source && this.source.readyState === EventSource.CLOSED) this.source = null; };
  }

  // The answers to stop and continue are not drawn: the event stream, which shows every change
  // in order, may already have said more (a pause reported before this answer arrived).
  async stop() {
    if (!this.job) return;
    this.stopButton.disabled = true;
    try { await api(`/api/analyses/${this.job.id}/stop`, {}); } catch (e) { showError(this.errors, e); }
  }

  async resume() {
    if (!this.job) return;
    this.continueButton.disabled = true;
    try { await api(`/api/analyses/${this.job.id}/continue`, {}); } catch (e) { showError(this.errors, e); }
  }

  close() {
    if (this.source) { this.source.close(); this.source = null; }
    if (this.job && ["queued", "running", "paused"].includes(this.job.state)) {
      fetch(`/api/analyses/${this.job.id}`, { method: "DELETE", keepalive: true }).catch(() => {});
    }
    this.job = null;
  }

  render(job) {
    if (!this.job || job.id !== this.job.id) return;  // a report of a search this panel has left
    this.job = job;
    const finished = ["capped", "cancelled", "failed", "done"].includes(job.state);
    if (finished && this.source) { this.source.close(); this.source = null; }
    let text = job.state;
    if (job.state === "queued") text = `queued (${job.queue_position} ahead of a free core)`;
    if (job.stopping) text = "stopping…";
    if (job.state === "capped") text = `finished (cap: ${job.reason})`;
    if (job.state === "failed") text = `failed: ${job.error}`;
    if (job.state === "cancelled") text = `cancelled (${job.reason})`;
    clear(this.status, text);
    this.stopButton.disabled = job.state !== "running";
    this.continueButton.disabled = job.state !== "paused";
    const r = job.result;
    if (!r) return;
    this.onResult(r);
    clear(this.rate, `${r.iterations.toLocaleString()} iterations · ${Math.round(r.rate).toLocaleString()} it/s · ${r.seconds.toFixed(1)} s`);
    // The rows, headers and sentences are the server's, as `refuge best-move` prints them.
    const columns = ["rank", "option", "win", "noise", "score", "visits", "note"];
    const best = r.options.find((o) => o.action === r.best) || r.options[0];
    const facts = r.facts ? this.factsBox(r) : null;
    if (this.factsEl) clear(this.factsEl, facts);
    clear(this.body,
      this.evalBar(r),
      h("p", { class: "verdict", id: "verdict" }, h("strong", {}, `Best: ${r.best}`),
        ` — ${(100 * best.win_probability).toFixed(1)}% win for ${this.playerName(r.player)}` +
        (best.exact ? " (exact)" : ` (noise ${(100 * best.ci95[0]).toFixed(1)}–${(100 * best.ci95[1]).toFixed(1)}%)`)),
      this.lineOf(r),
      h("div", { class: "scroll" }, h("table", { class: "options", id: "options" },
        h("thead", {}, h("tr", {}, r.table.headers.map((c, i) => h("th", { class: columns[i] }, c)))),
        h("tbody", {}, r.table.rows.map((row) => h("tr", {
          class: row[1] === r.best ? "best" : "", dataset: { action: row[1] }, title: "play this option on the board",
          onclick: () => this.onPlay && this.onPlay(row[1]) },
          row.map((cell, j) => h("td", { class: columns[j] },
            j === 1 ? h("button", { type: "button", class: "link" }, cell) : String(cell)))))))),
      h("p", { class: "note", id: "noise-note" }, r.table.note),
      h("p", { id: "recommendation" }, `Recommendation: ${r.best} (${r.reason})`),
      h("div", { class: "chances" }, h("h4", {}, r.players_table.title),
        h("div", { class: "scroll" }, h("table", { class: "players", id: "players" },
          h("thead", {}, h("tr", {}, r.players_table.headers.map((c) => h("th", {}, c)))),
          h("tbody", {}, r.players_table.rows.map((row, seat) => h("tr", { dataset: { player: seat } },
            row.map((cell, j) => h("td", {}, j === 0 ? this.withName(cell, seat) : cell)))))))),
      this.factsEl ? null : facts);
  }

  // The numbers of a return-or-draw decision in a few words beside it; the sentences behind them
  // (as best-move prints them) one tap away.
  factsBox(r) {
    const f = r.facts, pct = (p) => `${(100 * p).toFixed(0)}%`;
    return h("div", { class: "facts", id: "facts-box" },
      h("ul", { class: "key-facts" },
        h("li", {}, "Storm hits this turn if ", this.playerName(r.player), " draws: ", h("strong", {}, pct(f.storm_hit_chance_this_turn)),
          ` (weather tile alone ${pct(f.storm_hit_chance_weather_tile)})`),
        h("li", {}, "before the walk ends: ", h("strong", {}, pct(f.storm_hit_chance_walk))),
        h("li", {}, "scored on returning now: ", h("strong", {}, `${f.animal_points_at_stake} animal points`)),
        h("li", {}, "lost if the Storm hits: ", h("strong", {}, `${f.steps_at_risk} Steps, ${f.vp_at_risk} VP`))),
      h("details", {}, h("summary", {}, "Storm facts in full"), h("ul", {}, f.lines.map((line) => h("li", {}, line)))));
  }

  // The line as it would be played: every player's reply and the outcome of each chance event
  // (a draw, the weather) the search met most, with its chance.
  lineOf(r) {
    const moves = r.line_moves && r.line_moves.length ? r.line_moves : r.line.map((action) => ({ player: r.player, action }));
    return h("p", { id: "principal-line", class: "line" }, h("strong", {}, "Line: "), moves.map((m, i) => {
      const chance = m.player === null;
      const who = chance ? (m.drawer !== null && m.drawer !== undefined ? `${this.playerName(m.drawer)} ` : "") : `${this.playerName(m.player)}: `;
      const word = chance && m.drawer !== null && m.drawer !== undefined ? m.action.replace(/^drawn /, "drew ") : m.action;
      const step = h("span", { class: `step ${chance ? "chance" : m.player === r.player ? "own" : "reply"}`, dataset: { player: m.player ?? "" } },
        who, word, chance ? h("small", {}, ` ${(100 * m.probability).toFixed(0)}%`) : null);
      return i ? [" → ", step] : step;
    }));
  }

  // The evaluation bar (lichess's, for 2-4 players): every player's win chance if the best option
  // is played, side by side in the players' colours; the shares sum to 100 % (C18).
  evalBar(r) {
    return h("div", { class: "eval-bar", id: "eval-bar", role: "img",
      "aria-label": r.players.map((p) => `${this.playerName(p.player)} ${(100 * p.win_probability).toFixed(1)}%`).join(", ") },
      r.players.map((p) => {
        const share = 100 * p.win_probability;
        const part = h("span", { class: "share", dataset: { player: p.player }, title: `${this.playerName(p.player)}: ${share.toFixed(1)}% win` },
          share >= 35 ? `${this.playerName(p.player)} ${share.toFixed(0)}%` : share >= 8 ? `${share.toFixed(0)}%` : "");
        part.style.width = `${share}%`;
        part.style.background = PLAYER_COLOURS[p.player % PLAYER_COLOURS.length];
        return part;
      }));
  }

  // The player as this page names them ("Ann (0)"), the one to decide marked, for best-move's
  // "P0 (you)" / "P1".
  withName(cell, seat) {
    const name = this.playerName(seat);
    return cell.includes("(you)") ? `${name}, to decide` : name;
  }
}
