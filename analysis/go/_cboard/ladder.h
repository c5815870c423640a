/* Ladder search: Cazenave's captureLadder and isCapturedLadder (Cazenave 2016,
 * algorithms 1 and 2), on the board's make/undo, with a principal variation.
 *
 * captureLadder: the attacker is to move against the string at `target`; true
 * if every defence fails.  A string with more than two liberties is safe.
 * isCapturedLadder: the defender is to move; true if neither capturing an
 * adjacent attacker string in atari nor extending on its liberty saves it.
 * The depth limit and the node budget are per query; hitting either counts
 * as "not captured", as in the paper.
 */
#ifndef GO_LADDER_H
#define GO_LADDER_H

#include "board.h"

#define LADDER_MAX_DEPTH_CAP 128

typedef struct {
    int max_depth;     /* the paper's 100 */
    int max_nodes;     /* the paper's 1000 */
    int nodes;         /* nodes visited by the last query */
    int budget_hit;    /* 1 if the last query ran out of depth or nodes */
    int want_pv;       /* 0 skips the principal-variation bookkeeping */
    int pvlen[LADDER_MAX_DEPTH_CAP + 2];
    int pv[LADDER_MAX_DEPTH_CAP + 2][LADDER_MAX_DEPTH_CAP + 2];
} LadderSearch;

void ladder_init(LadderSearch *s, int max_depth, int max_nodes);
/* Attacker to move against the string at target: 1 if it is captured in a ladder.
 * On success s->pv[0][0..pvlen[0]) is the reading, attacker's move first. */
int ladder_capture(GoBoard *b, LadderSearch *s, int target);
/* Defender to move (the string at target has one liberty): 1 if it is captured
 * whatever it does. On success the PV starts with the defender's best try. */
int ladder_captured(GoBoard *b, LadderSearch *s, int target);

/* Per padded point, 1 on every stone of a string that has two liberties and is
 * captured with the attacker first (captured), or that has one liberty and
 * escapes with its owner first (escapes). */
void ladder_string_maps(GoBoard *b, LadderSearch *s, uint8_t *captured, uint8_t *escapes);
/* 1 unless p is an empty point with a stone or two edges next to it.  A
 * stone played on a quiet point keeps three liberties or more and touches no
 * enemy, so ladder_point would say 0 there for both colours. */
static inline int ladder_quiet(const GoBoard *b, int p) {
    const int16_t *c = &GB_AT(b, GB_COLOR, p);
    if (*c != GB_EMPTY) return 1;
    int up = c[-b->W], down = c[b->W], left = c[-1], right = c[1];
    /* Stones are odd (1, -1), the edge and empty points even (2, 0). */
    return !((up | down | left | right) & 1) && up + down + left + right <= GB_BORDER;
}
/* What a stone of color played on the point p (not quiet) would meet:
 * LADDER_CAPTURED if its string would then be captured in a ladder,
 * LADDER_THREATENS if the move puts an adjacent enemy string in atari that
 * cannot escape. */
enum { LADDER_CAPTURED = 1, LADDER_THREATENS = 2, LADDER_THEIRS = 2 };
int ladder_point(GoBoard *b, LadderSearch *s, int p, int color);
/* ladder_point for color, then for -color shifted left by LADDER_THEIRS bits:
 * one look at p's neighbours for both. */
int ladder_point_both(GoBoard *b, LadderSearch *s, int p, int color);
/* ladder_point over every padded point, as two 0/1 maps. */
void ladder_point_maps(GoBoard *b, LadderSearch *s, int color, uint8_t *captured, uint8_t *threatens);

#endif
