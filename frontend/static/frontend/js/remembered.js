/**
 * Display settings remembered across visits, as KaTrain and Sabaki keep theirs: each control named
 * here (a checkbox or a menu) gets its last value back when a board page opens, before the page
 * draws, and keeps each change in the browser's storage (nothing goes to the server). Only display
 * choices are kept: what asks the server for work (depth, network, teaching) starts afresh.
 */

const PREFIX = "goweb.display.";
export const REMEMBERED = ["show-coords", "show-numbers", "show-candidates", "show-played", "circle-figure", "graph-mode"];

/** The browser's storage, or null where it is refused (privacy settings, a sandboxed frame). */
function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** Give each control of `ids` on the page its remembered value, and remember its changes. */
export function rememberDisplay(ids = REMEMBERED) {
  const store = storage();
  if (!store) return;
  for (const id of ids) {
    const control = document.getElementById(id);
    if (!control) continue;
    const field = control.type === "checkbox" ? "checked" : "value";
    const kept = store.getItem(PREFIX + id);
    if (kept !== null) {
      const value = field === "checked" ? kept === "true" : kept;
      if (field === "checked" || [...control.options].some((o) => o.value === value)) control[field] = value;
    }
    control.addEventListener("change", () => store.setItem(PREFIX + id, String(control[field])));
  }
}
