// Your hand as cards to tap and every other legal move as buttons. The server says what is
// legal: a card with `data` is a move now, a card without it is not; a button's words are
// the chat keyboard's own.

import { cardFace } from "./cards.js";
import { append, el, fill, suitText } from "./dom.js";

/** Cards per row: one row while each card keeps 40 px (a tap target), else two rows. */
function columns(count, width) {
  if (count <= 0) return 1;
  return (width - 4 * (count - 1)) / count >= 40 ? count : Math.ceil(count / 2);
}

/** One hand as a grid of card buttons; `press(data)` gets a tapped card's data. */
function handGrid(cards, width, press) {
  const grid = el("div", { class: `cards${cards.some((c) => c.data) ? "" : " waiting"}` });
  grid.style.setProperty("--cols", String(columns(cards.length, width)));
  return append(grid, cards.map((c) => el("button", {
    class: `card-btn${c.data ? " legal" : ""}${c.marked ? " marked" : ""}`,
    type: "button",
    disabled: !c.data,
    "data-card": c.card,
    "data-press": c.data,
    "aria-pressed": c.marked ? "true" : null,
    onclick: () => c.data && press(c.data),
  }, cardFace(c.card))));
}

/** Renders your hand into `root`, and above it any hand you move for (open defence). */
export function renderHand(root, state, press) {
  const width = root.clientWidth || 360;
  const names = Object.fromEntries(state.seats.map((s) => [String(s.seat), s.name || ""]));
  const controlled = Object.entries(state.controlled || {}).filter(([, cards]) => cards.length);
  fill(root,
    controlled.map(([seat, cards]) => el("div", { class: "controlled", "data-seat": seat },
      el("div", { class: "label", text: names[seat] || "" }), handGrid(cards, width, press))),
    handGrid(state.hand || [], width, press));
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
  }, suitText(b.text))))));
}
