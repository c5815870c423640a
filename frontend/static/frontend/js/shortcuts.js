/**
 * Keyboard shortcuts: keys typed into a form control that uses them are the control's, not the
 * page's. A checkbox uses Space only, so the other keys pressed on it are the page's; a menu's and a
 * text field's keys (arrows among them) stay theirs, though a menu gives the focus up once a choice
 * is made in it (releaseMenus), so that the arrows move through the game again.
 */

/** Whether the element `target` uses the key `key` itself. */
function ownsKey(target, key) {
  if (target.matches("input[type=checkbox]")) return key === " ";
  return target.closest("input, textarea, select, [contenteditable]") !== null;
}

/**
 * Run `keys()[event.key]` on each key pressed on the page; `keys` is asked anew at each press. A
 * key pressed with Ctrl, Alt or Meta is the browser's (Ctrl+P prints, not passes).
 */
export function addShortcuts(keys) {
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.altKey || event.metaKey) return;
    if (ownsKey(event.target, event.key)) return;
    const action = keys()[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });
}

/** Take the focus off each menu of the page once a choice is made in it: its keys are the page's again. */
export function releaseMenus() {
  document.addEventListener("change", (event) => {
    if (event.target.matches("select")) event.target.blur();
  });
}
