/* Ladder search; see ladder.h. */
#include "ladder.h"

void ladder_init(LadderSearch *s, int max_depth, int max_nodes) {
    s->max_depth = max_depth < LADDER_MAX_DEPTH_CAP ? max_depth : LADDER_MAX_DEPTH_CAP;
    s->max_nodes = max_nodes;
    s->nodes = 0;
    s->budget_hit = 0;
    s->want_pv = 1;
    s->pvlen[0] = 0;
}

static void pv_set(LadderSearch *s, int depth, int move) {
    if (!s->want_pv) return;
    s->pv[depth][0] = move;
    int n = s->pvlen[depth + 1];
    for (int i = 0; i < n; i++) s->pv[depth][i + 1] = s->pv[depth + 1][i];
    s->pvlen[depth] = n + 1;
}

static int enter(LadderSearch *s, int depth) {
    s->pvlen[depth] = 0;
    s->pvlen[depth + 1] = 0;
    if (depth > s->max_depth || ++s->nodes > s->max_nodes) {
        s->budget_hit = 1;
        return 0;
    }
    return 1;
}

static int captured_rec(GoBoard *b, LadderSearch *s, int target, int depth);

static int capture_rec(GoBoard *b, LadderSearch *s, int target, int depth) {
    if (!enter(s, depth)) return 0;
    int color = GB_AT(b, GB_COLOR, target);
    if (color == GB_EMPTY) return 1;
    int n = gb_libs(b, target);
    if (n > 2) return 0;
    int libs[2];
    gb_liberty_points(b, target, libs, 2);
    if (n == 1) {
        /* Taking the last liberty captures, so it is legal unless a ko rule forbids it. */
        if (libs[0] == b->ko && -color == b->ko_color) return 0;
        if (b->superko) {
            if (gb_play(b, libs[0], -color) < 0) return 0;
            gb_undo(b);
        }
        s->pvlen[depth + 1] = 0;
        pv_set(s, depth, libs[0]);
        return 1;
    }
    for (int i = 0; i < 2; i++) {
        /* After an atari at libs[i] the defender extends at the other liberty;
         * with three empty points around it, that already escapes. */
        int ext = libs[1 - i], empties = 0;
        GB_FOR_DIRS(d) {
            int q = ext + b->dirs[d];
            empties += GB_AT(b, GB_COLOR, q) == GB_EMPTY && q != libs[i];
        }
        if (empties >= 3) continue;
        if (gb_play(b, libs[i], -color) < 0) continue;
        int ok = captured_rec(b, s, target, depth + 1);
        gb_undo(b);
        if (ok) {
            pv_set(s, depth, libs[i]);
            return 1;
        }
    }
    return 0;
}

/* The defender's tries for the target string, which has one liberty: the
 * liberties of attacker strings next to it that are in atari (at most max),
 * then its own liberty unless already listed; all in one walk of the string,
 * needed only when the attacker has a string in atari.  out needs room for
 * max + 1. */
static int defences(GoBoard *b, int target, int *out, int max) {
    int color = GB_AT(b, GB_COLOR, target);
    if (gb_ataris(b, -color) == 0) return gb_liberty_points(b, target, out, 1);
    int heads[64], nheads = 0, n = 0, own = 0;
    int head = GB_AT(b, GB_HEAD, target), st = head;
    do {
        GB_FOR_DIRS(d) {
            int q = st + b->dirs[d], c = GB_AT(b, GB_COLOR, q);
            if (c == GB_EMPTY) own = q; /* the only liberty */
            if (c != -color) continue;
            int h = GB_AT(b, GB_HEAD, q);
            if (GB_AT(b, GB_LIBS, h) != 1) continue;
            int dup = 0;
            for (int i = 0; i < nheads; i++) dup |= heads[i] == h;
            if (dup || nheads == 64) continue;
            heads[nheads++] = h;
            int lib;
            gb_liberty_points(b, h, &lib, 1);
            dup = 0;
            for (int i = 0; i < n; i++) dup |= out[i] == lib;
            if (!dup && n < max) out[n++] = lib;
        }
        st = GB_AT(b, GB_NEXT, st);
    } while (st != head);
    int dup = 0;
    for (int i = 0; i < n; i++) dup |= out[i] == own;
    if (!dup) out[n++] = own;
    return n;
}

static int captured_rec(GoBoard *b, LadderSearch *s, int target, int depth) {
    if (!enter(s, depth)) return 0;
    int color = GB_AT(b, GB_COLOR, target);
    if (color == GB_EMPTY) return 1;
    int n = gb_libs(b, target);
    if (n == 0) return 1;
    if (n > 1) return 0;
    int moves[65];
    int nmoves = defences(b, target, moves, 64);
    int best = -1, bestlen = -1, bestpv[LADDER_MAX_DEPTH_CAP + 2];
    for (int i = 0; i < nmoves; i++) {
        if (gb_play(b, moves[i], color) < 0) continue;
        int ok = capture_rec(b, s, target, depth + 1);
        gb_undo(b);
        if (!ok) {
            s->pvlen[depth + 1] = 0;
            pv_set(s, depth, moves[i]);
            return 0;
        }
        if (s->want_pv && s->pvlen[depth + 1] > bestlen) {
            best = moves[i];
            bestlen = s->pvlen[depth + 1];
            for (int k = 0; k < bestlen; k++) bestpv[k] = s->pv[depth + 1][k];
        }
    }
    if (s->want_pv && best >= 0) {
        for (int k = 0; k < bestlen; k++) s->pv[depth + 1][k] = bestpv[k];
        s->pvlen[depth + 1] = bestlen;
        pv_set(s, depth, best);
    }
    return 1;
}

int ladder_capture(GoBoard *b, LadderSearch *s, int target) {
    s->nodes = 0;
    s->budget_hit = 0;
    return capture_rec(b, s, target, 0);
}

int ladder_captured(GoBoard *b, LadderSearch *s, int target) {
    s->nodes = 0;
    s->budget_hit = 0;
    return captured_rec(b, s, target, 0);
}

void ladder_string_maps(GoBoard *b, LadderSearch *s, uint8_t *captured, uint8_t *escapes) {
    int npts = b->W * b->W;
    for (int p = 0; p < npts; p++) captured[p] = escapes[p] = 0;
    for (int p = 0; p < npts; p++) {
        int c = GB_AT(b, GB_COLOR, p);
        if ((c != GB_BLACK && c != GB_WHITE) || GB_AT(b, GB_HEAD, p) != p) continue;
        int libs = GB_AT(b, GB_LIBS, p);
        uint8_t *plane;
        int hit;
        if (libs == 2) {
            plane = captured;
            hit = ladder_capture(b, s, p);
        } else if (libs == 1) {
            plane = escapes;
            hit = !ladder_captured(b, s, p);
        } else {
            continue;
        }
        if (!hit) continue;
        int st = p;
        do {
            plane[st] = 1;
            st = GB_AT(b, GB_NEXT, st);
        } while (st != p);
    }
}

/* What a stone of either colour on an empty point would touch: its empty
 * neighbours, and per colour (black 0, white 1) whether a string of that
 * colour is next to it, and one with one, two, or four liberties or more. */
typedef struct {
    int empties;
    int stones[2], one[2], two[2], many[2];
} Touch;

static inline int side(int color) { return color == GB_BLACK ? 0 : 1; }

static void look(const GoBoard *b, int p, Touch *t) {
    *t = (Touch){0};
    GB_FOR_DIRS(d) {
        int q = p + b->dirs[d], c = GB_AT(b, GB_COLOR, q);
        if (c == GB_EMPTY) t->empties++;
        if (c != GB_BLACK && c != GB_WHITE) continue;
        int k = side(c), libs = GB_AT(b, GB_LIBS, GB_AT(b, GB_HEAD, q));
        t->stones[k] = 1;
        t->one[k] |= libs == 1;
        t->two[k] |= libs == 2;
        t->many[k] |= libs >= 4;
    }
}

/* ladder_point, given what p touches. */
static int point_facts(GoBoard *b, LadderSearch *s, int p, int color, const Touch *t) {
    int us = side(color), them = 1 - us;
    /* A stone with three empty neighbours cannot be laddered, nor one that
     * joins a string with four liberties; a move can only atari an enemy
     * string that has two.  When the move threatens nothing, joining
     * strings with fewer may still keep three liberties, told without
     * playing (alone and capturing nothing, the stone has empties). */
    int may_be_laddered = t->empties <= 2 && !t->many[us], threat = t->two[them];
    if (!may_be_laddered && !threat) return 0;
    if (!threat && t->stones[us] && !t->one[them] && gb_libs_after(b, p, color) >= 3) return 0;
    if (gb_play(b, p, color) < 0) return 0;
    int facts = 0;
    if (may_be_laddered && gb_libs(b, p) <= 2 && ladder_capture(b, s, p)) facts = LADDER_CAPTURED;
    for (int d = 0; d < 4 && threat; d++) {
        int q = p + b->dirs[d];
        if (GB_AT(b, GB_COLOR, q) == -color && gb_libs(b, q) == 1 && ladder_captured(b, s, q)) {
            facts |= LADDER_THREATENS;
            break;
        }
    }
    gb_undo(b);
    return facts;
}

int ladder_point(GoBoard *b, LadderSearch *s, int p, int color) {
    Touch t;
    look(b, p, &t);
    return point_facts(b, s, p, color, &t);
}

int ladder_point_both(GoBoard *b, LadderSearch *s, int p, int color) {
    Touch t;
    look(b, p, &t);
    return point_facts(b, s, p, color, &t) | point_facts(b, s, p, -color, &t) << LADDER_THEIRS;
}

void ladder_point_maps(GoBoard *b, LadderSearch *s, int color, uint8_t *captured, uint8_t *threatens) {
    int npts = b->W * b->W;
    for (int p = 0; p < npts; p++) {
        int facts = ladder_quiet(b, p) ? 0 : ladder_point(b, s, p, color);
        captured[p] = (facts & LADDER_CAPTURED) != 0;
        threatens[p] = (facts & LADDER_THREATENS) != 0;
    }
}
