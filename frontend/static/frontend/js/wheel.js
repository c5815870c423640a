/**
 * The mouse wheel over a board steps through the game's moves, as in Sabaki and KaTrain: down
 * (or towards the user) to the next move, up to the previous one, one move a notch; a touchpad's
 * small scrolls add up to a notch.
 */

/** The scroll, in pixels, that makes a step: a wheel's notch (100 or so, one step each) or touchpad scrolls added up. */
const NOTCH = 50;

/** Call `step(+1)` or `step(-1)` as the wheel turns over `element`, instead of scrolling the page. */
export function bindWheel(element, step) {
  let pending = 0;
  element.addEventListener(
    "wheel",
    (event) => {
      if (event.ctrlKey || !event.deltaY) return; // the browser's zoom, a sideways scroll
      event.preventDefault();
      const notch = event.deltaMode !== WheelEvent.DOM_DELTA_PIXEL || Math.abs(event.deltaY) >= NOTCH;
      if (Math.sign(event.deltaY) !== Math.sign(pending)) pending = 0;
      pending += notch ? NOTCH * Math.sign(event.deltaY) : event.deltaY;
      if (Math.abs(pending) >= NOTCH) {
        step(Math.sign(pending));
        pending = 0;
      }
    },
    { passive: false },
  );
}
