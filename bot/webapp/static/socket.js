// The WebSocket to the server: `hello` first, then frames both ways. When the connection
// drops, it connects again (waiting 1, 2, 4 … up to 15 s); a `refused` frame ends it for good.

// Closes that connecting again would not mend: a broken frame (4400), not signed in (4401),
// no such table for this user (4404), replaced by a newer window of his (4409: connecting
// again would close that one in turn)
const FINAL = new Set([4400, 4401, 4404, 4409]);

export class TableSocket {
  constructor({ url, hello, onFrame, onStatus }) {
    this.url = url;
    this.hello = hello;        // () => the hello frame
    this.onFrame = onFrame;    // (frame) => void
    this.onStatus = onStatus;  // ("open" | "lost" | "closed", close code) => void
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
      if (this.ws !== ws || this.stopped) return;
      if (FINAL.has(event.code)) {
        this.stopped = true;
        this.onStatus("closed", event.code);
        return;
      }
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
