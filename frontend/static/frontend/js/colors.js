/** The names of the colours as the protocol spells them ("B", "W"). */

export const COLOR_NAMES = { B: "Black", W: "White" };
