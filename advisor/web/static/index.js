// The start page: examples, the games folder, opening an uploaded file.
import { api, clear, fileDrop, h, showError } from "./common.js";

async function main() {
  const examples = await api("/api/examples");
  clear(document.getElementById("example-list"), examples.map((e) =>
    h("li", {}, h("a", { href: `/board?example=${encodeURIComponent(e.name)}` }, e.name), ` — ${e.title}: ${e.story}`)));
  const games = await api("/api/games");
  clear(document.getElementById("game-list"), games.files.length ? games.files.map((f) =>
    h("li", {}, h("a", { href: `/review?file=${encodeURIComponent(f.name)}` }, f.name), ` (${f.bytes} bytes)`)) : h("li", {}, "no game files"));
  fileDrop(document.getElementById("drop"), document.getElementById("upload"), (data) => {
    const isGame = data && data.format === "refuge-game/1";
    sessionStorage.setItem(isGame ? "refuge-record" : "refuge-position", JSON.stringify(data));
    location.href = isGame ? "/review?upload=1" : "/board?upload=1";
  });
}

main().catch((e) => showError("errors", e));
