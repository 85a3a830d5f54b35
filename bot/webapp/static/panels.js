// What is a tap away under the table: the deal's earlier tricks, the pulka sheet, the last
// deal's review and the replay of finished deals. One tab open at a time; a second tap closes.

import { cardFace } from "./cards.js";
import { el, fill, word } from "./dom.js";

export const TABS = ["tricks", "sheet", "review", "replay"];

function seatName(state, seat) {
  const found = state.seats.find((s) => s.seat === seat);
  return found ? found.name : "";
}

/** Every finished trick of the deal, the winner's card marked. */
function tricksPanel(state) {
  const tricks = state.tricks || [];
  return el("ol", { class: "trick-list" }, tricks.map((trick, i) => {
    const plays = trick.cards || trick;  // {cards, winner} or a bare list of plays
    const winner = trick.winner;
    return el("li", { class: "trick-row" },
      el("span", { class: "label", text: word(state.strings, "trick", { n: i + 1 }) || `${i + 1}` }),
      el("div", { class: "plays" }, plays.map((play) => el("figure", {
        class: play.seat === winner ? "play won" : "play",
      }, cardFace(play.card), el("figcaption", { text: seatName(state, play.seat) })))));
  }));
}

/** Preformatted text: the sheet keeps its columns (it scrolls sideways if it must), the
 * review is prose and wraps. */
function textPanel(text, kind) {
  return el("pre", { class: `plain ${kind}` }, text || "");
}

/** Renders the tab bar; `onTab(name)` is called on a tap. */
export function renderTabs(root, state, open, onTab) {
  fill(root, TABS.map((name) => el("button", {
    class: `tab${open === name ? " open" : ""}`,
    type: "button",
    "data-tab": name,
    "aria-expanded": open === name ? "true" : "false",
    onclick: () => onTab(name),
  }, word(state.strings, name))));
}

/** Renders the open tab's content (the replay tab is drawn by replay.js). */
export function renderPanel(root, state, open) {
  root.hidden = !open || open === "replay";
  if (open === "tricks") fill(root, tricksPanel(state));
  else if (open === "sheet") fill(root, textPanel(state.sheet, "sheet"));
  else if (open === "review") fill(root, textPanel(state.review, "review"));
  else fill(root);
}
