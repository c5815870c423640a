/**
 * The board websocket (docs/protocol.md): JSON messages dispatched by their `type`, messages sent
 * before the socket opens queued (each the once: a request repeated while waiting goes out once),
 * and a reconnection 1.5 s after the connection drops (not when the server refused the game, codes
 * 4403 and 4404, or the socket: 4429, too many open from the address). A page that must not act
 * on a lost connection (the play page's moves) sends with `sendNow` and follows `onConnection`.
 */

const RECONNECT_MS = 1500;
const REFUSED = [4403, 4404, 4429];

export class BoardSocket {
  #url;
  #onLost;
  #handlers = new Map();
  #listeners = [];
  #pending = [];
  #socket = null;

  /** The socket at `path` (`/ws/board/<id>/`); `onLost` is called when the connection drops, before reconnecting. */
  constructor(path, onLost) {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.#url = `${scheme}://${location.host}${path}`;
    this.#onLost = onLost;
  }

  /** Handle the messages of type `type` with `handler(message)` (one handler per type). */
  on(type, handler) {
    this.#handlers.set(type, handler);
  }

  /**
   * Call `listener(open, reconnecting)` each time the socket opens (true) and each time the
   * connection drops (false; `reconnecting`: whether another try follows, not after a refusal).
   */
  onConnection(listener) {
    this.#listeners.push(listener);
  }

  /** Whether the socket is open now (what is sent goes out at once). */
  get connected() {
    return this.#socket !== null && this.#socket.readyState === WebSocket.OPEN;
  }

  /** Send `message` now, or once the socket opens (a message already waiting is not queued twice). */
  send(message) {
    const text = JSON.stringify(message);
    if (this.connected) this.#socket.send(text);
    else if (!this.#pending.includes(text)) this.#pending.push(text);
  }

  /** Send `message` if the socket is open, else drop it; return whether it went. */
  sendNow(message) {
    if (!this.connected) return false;
    this.#socket.send(JSON.stringify(message));
    return true;
  }

  connect() {
    const socket = new WebSocket(this.#url);
    this.#socket = socket;
    socket.onopen = () => {
      while (this.#pending.length) socket.send(this.#pending.shift());
      for (const listener of this.#listeners) listener(true, false);
    };
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      this.#handlers.get(message.type)?.(message);
    };
    socket.onclose = (event) => {
      const refused = REFUSED.includes(event.code);
      if (!refused) {
        this.#onLost();
        setTimeout(() => this.connect(), RECONNECT_MS);
      }
      for (const listener of this.#listeners) listener(false, !refused);
    };
  }
}
