// A finished deal card by card: pick a deal, then step through its plays. The hands are all
// open here: the server sends a replay only for finished deals, whose record shows them anyway.

import { cardFace } from "./cards.js";
import { el, fill, word } from "./dom.js";
import { seatPlaces, trickView } from "./table.js";

/** The finished deals of the game: every earlier deal, and this one when the game is over. */
export function finishedDeals(state) {
  const last = state.over ? state.deal : state.deal - 1;
  return Array.from({ length: Math.max(0, last) }, (_, i) => i + 1);
}

/** The replay's position after `step` cards played: hands left and the trick on the table. */
export function positionAt(replay, step) {
  const tricks = replay.tricks.map((trick) => trick.cards || trick);
  const total = tricks.reduce((n, trick) => n + trick.length, 0);
  const played = new Set();
  let trick = [];
  let left = step;
  for (const plays of tricks) {
    if (left <= 0) break;
    trick = plays.slice(0, left);  // the trick the last played card belongs to
    trick.forEach((p) => played.add(p.card));
    left -= plays.length;
  }
  const hands = {};
  for (const [seat, cards] of Object.entries(startingHands(replay))) {
    hands[seat] = cards.filter((c) => !played.has(c));
  }
  return { hands, trick, total };
}

/** The hands as the play began: the hands are as dealt, so the declarer who took the talon
 * holds it, less the two cards he discarded (the record's `discard` move). */
export function startingHands(replay) {
  const hands = Object.fromEntries(Object.entries(replay.hands).map(([s, c]) => [s, [...c]]));
  for (const move of replay.moves || []) {
    if (!move || !Array.isArray(move.discard) || !(String(move.seat) in hands)) continue;
    const seat = String(move.seat);
    hands[seat] = hands[seat].concat(replay.talon || []).filter((c) => !move.discard.includes(c));
  }
  return hands;
}

export class ReplayView {
  constructor(root, ask) {
    this.root = root;
    this.ask = ask;  // (deal) => sends {"t": "replay", deal}
    this.replay = null;
    this.step = 0;
  }

  /** A `replay` frame arrived: show it from its first card. */
  load(frame) {
    this.replay = frame;
    this.step = 0;
  }

  render(state, visible) {
    this.root.hidden = !visible;
    if (!visible) return;
    const deals = finishedDeals(state);
    const picker = el("div", { class: "deal-picker" }, deals.length ? deals.map((n) => el("button", {
      type: "button",
      class: `deal-btn${this.replay && this.replay.deal === n ? " open" : ""}`,
      "data-deal": n,
      onclick: () => this.ask(n),
    }, word(state.strings, "deal", { n }) || String(n))) : word(state.strings, "no_deals"));
    fill(this.root, picker, this.replay ? this.board(state) : null);
  }

  board(state) {
    const replay = this.replay;
    const pos = positionAt(replay, this.step);
    const places = seatPlaces(state);
    const hands = Object.entries(pos.hands).map(([seat, cards]) => {
      const found = state.seats.find((s) => String(s.seat) === seat);
      return el("div", { class: `replay-hand place-${places[seat] || "top"}` },
        el("div", { class: "name", text: (found && found.name) || seat }),
        el("div", { class: "open-hand" }, cards.map((card) => cardFace(card))));
    });
    const go = (step) => () => {
      this.step = Math.max(0, Math.min(pos.total, step));
      this.render(state, true);
    };
    const controls = el("div", { class: "replay-controls" },
      el("button", { type: "button", class: "step", "data-step": "first", onclick: go(0) }, "⏮"),
      el("button", { type: "button", class: "step", "data-step": "back", "aria-label": word(state.strings, "prev"),
        onclick: go(this.step - 1) }, "◀"),
      el("span", { class: "counter", text: `${this.step} / ${pos.total}` }),
      el("button", { type: "button", class: "step", "data-step": "next", "aria-label": word(state.strings, "next"),
        onclick: go(this.step + 1) }, "▶"),
      el("button", { type: "button", class: "step", "data-step": "last", onclick: go(pos.total) }, "⏭"));
    const talon = (replay.talon || []).length
      ? el("div", { class: "talon" }, el("span", { class: "label", text: word(state.strings, "talon") }),
        el("div", { class: "cards" }, replay.talon.map((card) => cardFace(card))))
      : null;
    const result = this.step === pos.total ? el("p", { class: "result", text: replay.result || "" }) : null;
    return el("div", { class: "replay-board" }, hands, talon,
      trickView(pos.trick, places, "replay-trick"), controls, result);
  }
}
