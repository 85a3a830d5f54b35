// The felt: the other seats along the top, the trick and the talon in the middle, your seat
// at the bottom. Seats are placed clockwise from yours, as players sit at a real table:
// the next to play after you sits on your left.

import { cardBack, cardFace } from "./cards.js";
import { el, fill, word } from "./dom.js";

/** Seat numbers in table order starting with the viewer's (or the first seat). */
export function seatOrder(state) {
  const seats = state.seats.map((s) => s.seat);
  const start = Math.max(0, seats.indexOf(state.me));
  return seats.slice(start).concat(seats.slice(0, start));
}

/** Where each seat sits on screen: "bottom" for the viewer, the rest left to right. */
export function seatPlaces(state) {
  const order = seatOrder(state);
  const others = order.slice(1);
  const names = others.length === 3 ? ["left", "top", "right"] : ["left", "right"];
  const places = { [order[0]]: "bottom" };
  others.forEach((seat, i) => { places[seat] = names[i] || "top"; });
  return places;
}

/** "m:ss" for a number of seconds. */
export function clock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function openHand(cards) {
  return el("div", { class: "open-hand" }, cards.map((card) => cardFace(card)));
}

function backs(count) {
  // a small fanned stack: three backs at most, the count written over it
  const stack = el("div", { class: "backs", "data-count": count });
  for (let i = 0; i < Math.min(count, 3); i++) stack.append(cardBack());
  stack.append(el("span", { class: "count", text: count }));
  return stack;
}

function seatBox(state, seat, place) {
  const strings = state.strings;
  const open = (state.open || {})[seat.seat];
  const mine = seat.seat === state.me;
  const box = el("div", {
    class: `seat place-${place}${seat.turn ? " turn" : ""}${mine ? " mine" : ""}`,
    "data-seat": seat.seat,
  });
  const name = seat.name || "";
  // computer players' names carry their 🤖 already; the mark is added only where one lacks it
  box.append(el("div", { class: "name" }, seat.robot && !name.startsWith("🤖") ? "🤖 " : "", name));
  const facts = el("div", { class: "facts" });
  if (seat.dealer) facts.append(el("span", { class: "badge dealer", text: word(strings, "dealer") || "⟲" }));
  if (seat.role) facts.append(el("span", { class: "badge role", text: seat.role }));
  const taken = word(strings, "taken", { n: seat.tricks });
  facts.append(el("span", { class: "taken", text: taken || `✋ ${seat.tricks}` }));
  if (seat.turn && state.turn_left !== null && state.turn_left !== undefined) {
    facts.append(el("span", { class: "timer", text: `⏱ ${clock(state.turn_left)}` }));
  }
  box.append(facts);
  if (open && open.length) box.append(openHand(open));
  else if (!mine && seat.cards > 0) box.append(backs(seat.cards));
  // the declarer's own discard, which only he sees
  if (mine && state.discard && state.discard.length) {
    box.append(el("div", { class: "open-hand discard" }, state.discard.map((card) => cardFace(card))));
  }
  return box;
}

/** The trick on the table: each card in front of the seat that played it. */
export function trickView(trick, places, extraClass = "") {
  const view = el("div", { class: `trick ${extraClass}` });
  trick.forEach((play, i) => {
    const card = cardFace(play.card);
    // a talon card led in all-pass has no seat
    card.classList.add(play.seat === null ? "from-talon" : `from-${places[play.seat] || "top"}`);
    card.style.zIndex = String(i + 1);  // later cards lie on top
    view.append(card);
  });
  return view;
}

function centre(state, places) {
  const box = el("div", { class: "centre" });
  if (state.talon && state.talon.length) {
    box.append(el("div", { class: "talon" },
      el("span", { class: "label", text: word(state.strings, "talon") }),
      el("div", { class: "cards" }, state.talon.map((card) => cardFace(card)))));
  }
  box.append(trickView(state.trick || [], places));
  // an offer's cards, shown to the players who answer it
  if (state.offer_hand && state.offer_hand.length) {
    box.append(el("div", { class: "open-hand offer" }, state.offer_hand.map((card) => cardFace(card))));
  }
  return box;
}

/** Renders the whole felt into `root`. */
export function renderTable(root, state) {
  const places = seatPlaces(state);
  const bySeat = Object.fromEntries(state.seats.map((s) => [s.seat, s]));
  const order = seatOrder(state);
  const others = order.slice(1);
  // four at the table: the player across takes the top row, the two beside you the next
  const top = el("div", { class: others.length === 3 ? "others four" : "others" },
    others.map((n) => seatBox(state, bySeat[n], places[n])));
  fill(root, top, centre(state, places), seatBox(state, bySeat[order[0]], "bottom"));
}
