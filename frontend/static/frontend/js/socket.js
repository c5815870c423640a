/**
 * The board websocket (docs/protocol.md): JSON messages dispatched by their `type`, messages sent
 * before the socket opens queued, and a reconnection 1.5 s after the connection drops (not when
 * the server refused the game, codes 4403 and 4404, or the socket: 4429, too many open from the address).
 */

const RECONNECT_MS = 1500;
const REFUSED = [4403, 4404, 4429];

export class BoardSocket {
  #url;
  #onLost;
  #handlers = new Map();
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

  send(message) {
    const text = JSON.stringify(message);
    if (this.#socket && this.#socket.readyState === WebSocket.OPEN) this.#socket.send(text);
    else this.#pending.push(text);
  }

  connect() {
    const socket = new WebSocket(this.#url);
    this.#socket = socket;
    socket.onopen = () => {
      while (this.#pending.length) socket.send(this.#pending.shift());
    };
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      this.#handlers.get(message.type)?.(message);
    };
    socket.onclose = (event) => {
      if (REFUSED.includes(event.code)) return;
      this.#onLost();
      setTimeout(() => this.connect(), RECONNECT_MS);
    };
  }
}
