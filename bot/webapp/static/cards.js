// Cards drawn as SVG in code: no image files, crisp at any size. A card is "10H", "QS", "7D".

const SVG = "http://www.w3.org/2000/svg";
const SUITS = { S: "♠", C: "♣", D: "♦", H: "♥" };
const RED = new Set(["D", "H"]);

function svgNode(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Splits "10H" into ["10", "H"]. */
export function parseCard(card) {
  return [card.slice(0, -1), card.slice(-1)];
}

function frame(cls) {
  const svg = svgNode("svg", { viewBox: "0 0 60 84", class: cls, role: "img" });
  svg.append(svgNode("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, class: "card-edge" }));
  return svg;
}

/** The face of a card: rank and suit in the corner, a large suit in the middle. */
export function cardFace(card) {
  const [rank, suit] = parseCard(card);
  const svg = frame(`card ${RED.has(suit) ? "red" : "black"}`);
  svg.setAttribute("aria-label", rank + SUITS[suit]);
  svg.dataset.card = card;
  // "10" is two glyphs: a narrower font size keeps it inside the corner
  const rankSize = rank === "10" ? 21 : 25;
  svg.append(svgNode("text", { x: 4, y: 24, "font-size": rankSize, class: "rank" }, rank));
  svg.append(svgNode("text", { x: 5, y: 45, "font-size": 20, class: "suit" }, SUITS[suit]));
  svg.append(svgNode("text", { x: 40, y: 76, "font-size": 34, "text-anchor": "middle",
    class: "pip" }, SUITS[suit]));
  return svg;
}

/** The back of a card, for the cards of other hands. */
export function cardBack() {
  const svg = frame("card back");
  svg.setAttribute("aria-hidden", "true");
  svg.append(svgNode("rect", { x: 6, y: 6, width: 48, height: 72, rx: 3, class: "back-inner" }));
  svg.append(svgNode("path", { d: "M30 18 L44 42 L30 66 L16 42 Z", class: "back-mark" }));
  return svg;
}
