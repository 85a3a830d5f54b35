// Your hand as cards to tap and every other legal move as buttons. The server says what is
// legal: a card with `data` is a move now, a card without it is not; a button's words are
// the chat keyboard's own.

import { cardFace } from "./cards.js";
import { el, fill } from "./dom.js";

/** Cards per row: one row while each card keeps ~44 px, else two rows. */
function columns(count, width) {
  if (count <= 0) return 1;
  return width / count >= 44 ? count : Math.ceil(count / 2);
}

/** Renders the hand into `root`; `press(data)` is called with a tapped card's data. */
export function renderHand(root, state, press) {
  const hand = state.hand || [];
  const anyLegal = hand.some((c) => c.data);
  root.style.setProperty("--cols", String(columns(hand.length, root.clientWidth || 360)));
  root.classList.toggle("waiting", !anyLegal);
  fill(root, hand.map((c) => el("button", {
    class: `card-btn${c.data ? " legal" : ""}${c.marked ? " marked" : ""}`,
    type: "button",
    disabled: !c.data,
    "data-card": c.card,
    "aria-pressed": c.marked ? "true" : null,
    onclick: () => c.data && press(c.data),
  }, cardFace(c.card))));
}

/** Renders the rows of move buttons into `root`. */
export function renderButtons(root, state, press) {
  const rows = (state.buttons || []).filter((row) => row.length);
  fill(root, rows.map((row) => el("div", { class: "row" }, row.map((b) => el("button", {
    class: "move",
    type: "button",
    disabled: !b.data,
    "data-press": b.data,
    onclick: () => b.data && press(b.data),
  }, b.text)))));
}
