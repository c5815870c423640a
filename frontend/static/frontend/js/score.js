/**
 * Score leads, always from Black's side: in words ("B+3.5" when Black leads, "W+3.5" when White
 * does), and whether a whole-game analysis has any.
 */

/** Black's lead from `lead`, the lead of the player `color` ("B" or "W"). */
export const blackLead = (lead, color) => (color === "B" ? lead : -lead);

/** "B+3.5" or "W+3.5": who leads Black's lead `lead` says, and by how many points (0 reads "B+0.0"). */
export const leadText = (lead) => `${lead >= 0 ? "B" : "W"}+${Math.abs(lead).toFixed(1)}`;

/**
 * Whether the whole-game analysis `entries` (sparse, by move number) came without score leads: its
 * network has no score head. False before any entry came.
 */
export function lacksScoreLeads(entries) {
  const analysed = entries.filter(Boolean);
  return analysed.length > 0 && analysed.every((e) => (e.black_score_lead ?? null) === null);
}
