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
        for (int d = 0; d < 4; d++) {
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
 * which stops at the liberty when the attacker has no string in atari.
 * out needs room for max + 1. */
static int defences(GoBoard *b, int target, int *out, int max) {
    int color = GB_AT(b, GB_COLOR, target);
    if (gb_ataris(b, -color) == 0) return gb_liberty_points(b, target, out, 1);
    int heads[64], nheads = 0, n = 0, own = 0;
    int head = GB_AT(b, GB_HEAD, target), st = head;
    do {
        for (int d = 0; d < 4; d++) {
            int q = st + b->dirs[d], c = GB_AT(b, GB_COLOR, q);
            if (c == GB_EMPTY && !own) own = q;
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

void ladder_point_maps(GoBoard *b, LadderSearch *s, int color, uint8_t *captured, uint8_t *threatens) {
    int npts = b->W * b->W;
    for (int p = 0; p < npts; p++) captured[p] = threatens[p] = 0;
    for (int p = 0; p < npts; p++) {
        if (GB_AT(b, GB_COLOR, p) != GB_EMPTY) continue;
        /* A stone with three empty neighbours cannot be laddered, and a move
         * can only atari an enemy string that has two liberties. */
        int empties = 0, enemy_two_libs = 0, friend_many_libs = 0;
        for (int d = 0; d < 4; d++) {
            int q = p + b->dirs[d], c = GB_AT(b, GB_COLOR, q);
            if (c == GB_EMPTY) empties++;
            else if (c == color && GB_AT(b, GB_LIBS, GB_AT(b, GB_HEAD, q)) >= 4) friend_many_libs = 1;
            else if (c == -color && GB_AT(b, GB_LIBS, GB_AT(b, GB_HEAD, q)) == 2) enemy_two_libs = 1;
        }
        /* The new string keeps at least three liberties if p has three empty
         * neighbours or joins a string with four. */
        int may_be_laddered = empties <= 2 && !friend_many_libs;
        if (!may_be_laddered && !enemy_two_libs) continue;
        if (gb_play(b, p, color) < 0) continue;
        if (may_be_laddered && gb_libs(b, p) <= 2 && ladder_capture(b, s, p)) captured[p] = 1;
        for (int d = 0; d < 4 && enemy_two_libs && !threatens[p]; d++) {
            int q = p + b->dirs[d];
            if (GB_AT(b, GB_COLOR, q) == -color && gb_libs(b, q) == 1 && ladder_captured(b, s, q)) threatens[p] = 1;
        }
        gb_undo(b);
    }
}
