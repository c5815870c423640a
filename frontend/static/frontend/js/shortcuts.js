/** Keyboard shortcuts: keys typed into a form control are the control's, not the page's. */

/** Run `keys()[event.key]` on each key pressed on the page; `keys` is asked anew at each press. */
export function addShortcuts(keys) {
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, textarea, select")) return;
    const action = keys()[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });
}
