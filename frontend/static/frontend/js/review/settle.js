/**
 * Requests sent once the board settles: stepping through a game (an arrow key held down, the mouse
 * wheel) shows every position at once, but asks the server only for the first one and for the one
 * it stops on, so that the socket stays within its address's message budget (docs/protocol.md).
 */

export const QUIET_MS = 150;

/**
 * Return a function that calls `action` at once when it was last called `quietMs` or more ago,
 * else `quietMs` after its last call (the calls between are dropped: `action` reads what is shown
 * when it runs).
 */
export function whenSettled(action, quietMs = QUIET_MS) {
  let timer = null;
  let last = -Infinity;
  return () => {
    const now = performance.now();
    const quiet = now - last >= quietMs;
    last = now;
    clearTimeout(timer);
    timer = null;
    if (quiet) action();
    else timer = setTimeout(action, quietMs);
  };
}
