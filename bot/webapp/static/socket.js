// The WebSocket to the server: `hello` first, then frames both ways. When the connection
// drops, it connects again (waiting 1, 2, 4 … up to 15 s); a `refused` frame ends it for good.

export class TableSocket {
  constructor({ url, hello, onFrame, onStatus }) {
    this.url = url;
    this.hello = hello;        // () => the hello frame
    this.onFrame = onFrame;    // (frame) => void
    this.onStatus = onStatus;  // ("open" | "lost") => void
    this.delay = 1000;
    this.stopped = false;
    this.ws = null;
  }

  connect() {
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify(this.hello()));
    };
    ws.onmessage = (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;  // not ours: nothing to show
      }
      if (frame.t === "state") {
        this.delay = 1000;  // a working connection: the next drop retries soon
        this.onStatus("open");
      }
      if (frame.t === "refused") this.stopped = true;
      this.onFrame(frame);
    };
    ws.onclose = (event) => {
      // 4401 (not signed in) and 4404 (no such table for you) will not change by retrying
      if (event.code === 4401 || event.code === 4404) this.stopped = true;
      if (this.ws !== ws || this.stopped) return;
      this.onStatus("lost");
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 15000);
    };
  }

  /** Sends a frame if connected; returns whether it went. */
  send(frame) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }
}

/** The socket's URL: `ws` beside the page (…/app/ws), wss on https. */
export function socketUrl() {
  const url = new URL("ws", location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.search = "";
  url.hash = "";
  return url.toString();
}
