// The status lines above the table (the auction, the contract, the whists, whose move), as
// the chat's table message says them. A long status folds: its first line opens the rest,
// and the last line (your move, or whom the table waits for) always shows.

import { el, fill, suitText, word } from "./dom.js";

const FOLD_OVER = 3;  // lines shown as they are; more fold

/** Renders the status into `root`; `folded.open` keeps the fold's state across redraws. */
export function renderStatus(root, state, folded) {
  let lines = (state.status || []).filter(Boolean);
  if (!lines.length) lines = [word(state.strings, state.over ? "game_over" : "waiting")];
  if (lines.length <= FOLD_OVER) {
    fill(root, lines.map((line) => el("div", { class: "line" }, suitText(line))));
    return;
  }
  const fold = el("details", { class: "fold", open: folded.open },
    el("summary", { class: "line" }, suitText(lines[0])),
    lines.slice(1, -1).map((line) => el("div", { class: "line" }, suitText(line))));
  fold.addEventListener("toggle", () => { folded.open = fold.open; });
  fill(root, fold, el("div", { class: "line last" }, suitText(lines[lines.length - 1])));
}
