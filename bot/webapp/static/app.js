// The Mini App's page: connects to the table, draws each `state` the server sends and sends
// the player's taps back as `press` frames. Everything it shows comes from the server.

import { word } from "./dom.js";
import { renderButtons, renderHand } from "./moves.js";
import { renderPanel, renderTabs } from "./panels.js";
import { ReplayView } from "./replay.js";
import { TableSocket, socketUrl } from "./socket.js";
import { renderStatus } from "./status.js";
import { clock, renderTable } from "./table.js";
import { initData, startTelegram, tableId, tapFeedback } from "./telegram.js";

const $ = (id) => document.getElementById(id);

const page = {
  state: null,
  tab: null,        // the open tab under the table, or null
  deadline: null,   // when the current turn runs out (ms), for the clock
  toastTimer: 0,
  pressTimer: 0,
  sawOver: false,   // the sheet opens by itself once, when the game ends
  statusFold: { open: false },
};

const socket = new TableSocket({
  url: socketUrl(),
  hello: () => ({ t: "hello", init: initData(), table: tableId() }),
  onFrame: handle,
  onStatus: (status, code) => {
    $("lost").hidden = status !== "lost";
    // a socket closed for good: the table stays in view, greyed, and takes no taps; a
    // newer window of the same player took its place (4409): say so
    document.body.classList.toggle("closed", status === "closed");
    const replaced = status === "closed" && code === 4409;
    $("replaced").textContent = replaced && page.state ? word(page.state.strings, "replaced") : "";
    $("replaced").hidden = !replaced;
  },
});

const replay = new ReplayView($("replay"), (deal) => socket.send({ t: "replay", deal }));

function press(data) {
  if (!socket.send({ t: "press", data })) return;
  tapFeedback();
  // one tap, one move: the moves wait for the server's answer (a new state or a toast),
  // or a few seconds if none comes (a press that changed nothing)
  document.body.classList.add("pressed");
  clearTimeout(page.pressTimer);
  page.pressTimer = setTimeout(released, 5000);
}

function released() {
  clearTimeout(page.pressTimer);
  document.body.classList.remove("pressed");
}

function onTab(name) {
  page.tab = page.tab === name ? null : name;
  draw();
}

function draw() {
  const state = page.state;
  if (!state) return;
  document.documentElement.lang = state.lang || "";
  document.title = word(state.strings, "table") || document.title;
  $("lost-text").textContent = word(state.strings, "lost");
  renderStatus($("status"), state, page.statusFold);
  renderTable($("table"), state);
  renderButtons($("moves"), state, press);
  renderHand($("hand"), state, press);
  renderTabs($("tabs"), state, page.tab, onTab);
  renderPanel($("panel"), state, page.tab);
  replay.render(state, page.tab === "replay");
}

function showToast(text) {
  const toast = $("toast");
  toast.textContent = text;
  toast.hidden = false;
  clearTimeout(page.toastTimer);
  page.toastTimer = setTimeout(() => { toast.hidden = true; }, 4000);
}

function handle(frame) {
  if (frame.t === "state") {
    page.state = frame;
    const left = frame.turn_left;
    page.deadline = typeof left === "number" ? Date.now() + left * 1000 : null;
    if (frame.over && !page.sawOver) page.tab = "sheet";
    page.sawOver = Boolean(frame.over);
    released();
    $("app").hidden = false;
    $("loading").hidden = true;
    draw();
  } else if (frame.t === "toast") {
    released();
    showToast(frame.text || "");
  } else if (frame.t === "refused") {
    // no table for this user: say why and show nothing else
    page.state = null;
    $("app").hidden = true;
    $("loading").hidden = true;
    $("lost").hidden = true;
    $("refused").textContent = frame.text || "";
    $("refused").hidden = false;
  } else if (frame.t === "replay") {
    replay.load(frame);
    page.tab = "replay";
    draw();
  }
}

// the turn's clock counts down between states
setInterval(() => {
  const timer = document.querySelector(".seat.turn .timer");
  if (timer && page.deadline !== null) timer.textContent = `⏱ ${clock((page.deadline - Date.now()) / 1000)}`;
}, 1000);

// the hand's rows depend on the width: redraw when it changes (a phone turned, a window resized)
window.addEventListener("resize", () => { if (page.state) renderHand($("hand"), page.state, press); });

startTelegram();
window.addEventListener("load", startTelegram);  // telegram-web-app.js loads asynchronously
socket.connect();
