// Building DOM nodes without innerHTML: every text the server sends goes in as textContent,
// so a name like "<b>Ann</b>" stays a name.

/** el("div", {class: "x", onclick: f}, child, "text", ...) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = String(value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

/** Appends nodes and strings (as text nodes); skips null, flattens arrays. */
export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replaces all children of node. */
export function fill(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

/** A page word from the server's `strings`, with {name} fields filled in. */
export function word(strings, key, fields = {}) {
  const text = (strings && strings[key]) || "";
  return text.replace(/\{(\w+)\}/g, (all, name) => (name in fields ? String(fields[name]) : all));
}

const SUIT = /([♠♣♦♥])\uFE0F?/u;

/** A server text with its suit symbols drawn as text in the suit's colour: the bot's emoji
 * suits (♠️) turn dark grey on a dark theme, a coloured text symbol reads on both. */
export function suitText(text) {
  return String(text).split(SUIT).filter((part) => part !== "").map((part) => (
    SUIT.test(part)
      ? el("span", { class: `suit-sym ${"♦♥".includes(part) ? "red" : "black"}`, text: part })
      : part));
}
