/* Feature-plane kernels; see planes.h. */
#include "planes.h"

#include <math.h>
#include <string.h>

static inline int area_of(const GoBoard *b) { return b->size * b->size; }
static inline int pad(const GoBoard *b, int i) { return (i / b->size + 1) * b->W + i % b->size + 1; }

static void clear(const GoBoard *b, float *out, int planes) { memset(out, 0, sizeof(float) * planes * area_of(b)); }

void pl_stones(const GoBoard *b, int us, float *out) {
    int area = area_of(b);
    clear(b, out, 3);
    for (int i = 0; i < area; i++) {
        int c = GB_AT(b, GB_COLOR, pad(b, i));
        out[(c == us ? 0 : c == -us ? 1 : 2) * area + i] = 1.0f;
    }
}

void pl_liberties(const GoBoard *b, int us, int top, int both, float *out) {
    int area = area_of(b);
    clear(b, out, both ? 2 * top : top);
    for (int i = 0; i < area; i++) {
        int p = pad(b, i), c = GB_AT(b, GB_COLOR, p);
        if (c != GB_BLACK && c != GB_WHITE) continue;
        int n = gb_libs(b, p);
        if (n < 1) continue;
        int k = (n >= top ? top : n) - 1;
        int block = both && c != us ? top : 0;
        out[(block + k) * area + i] = 1.0f;
    }
}

void pl_liberties_after(GoBoard *b, int color, int top, float *out) {
    int area = area_of(b);
    clear(b, out, top);
    for (int i = 0; i < area; i++) {
        int p = pad(b, i);
        if (GB_AT(b, GB_COLOR, p) != GB_EMPTY || gb_play(b, p, color) < 0) continue;
        int n = gb_libs(b, p);
        gb_undo(b);
        out[((n >= top ? top : n) - 1) * area + i] = 1.0f;
    }
}

void pl_legal(GoBoard *b, int us, float *out) {
    int area = area_of(b);
    for (int i = 0; i < area; i++) out[i] = gb_legal(b, pad(b, i), us) == 0 ? 1.0f : 0.0f;
}

static int ko_for(const GoBoard *b, int us) { return b->ko && b->ko_color == us ? b->ko : 0; }

void pl_ko_point(const GoBoard *b, int us, float *out) {
    clear(b, out, 1);
    int ko = ko_for(b, us);
    if (ko) out[(ko / b->W - 1) * b->size + ko % b->W - 1] = 1.0f;
}

void pl_ko_exists(const GoBoard *b, int us, float *out) {
    int area = area_of(b);
    float v = ko_for(b, us) ? 1.0f : 0.0f;
    for (int i = 0; i < area; i++) out[i] = v;
}

static int unpad(const GoBoard *b, int p) { return (p / b->W - 1) * b->size + p % b->W - 1; }

void pl_last_moves(const GoBoard *b, int count, float *out) {
    clear(b, out, count);
    int k = 0;
    for (int f = b->flen - 1; f >= 0 && k < count; f--) {
        int p = b->frames[f].point;
        if (p == GB_FRAME_SETUP) continue;
        if (p != GB_FRAME_PASS) out[k * area_of(b) + unpad(b, p)] = 1.0f;
        k++;
    }
}

void pl_history_decay(const GoBoard *b, int us, float *out) {
    int area = area_of(b);
    uint8_t done[GB_MAX_P];
    memset(done, 0, sizeof(done));
    clear(b, out, 2);
    int t = 0;
    for (int f = b->flen - 1; f >= 0; f--) {
        const GbFrame *fr = &b->frames[f];
        if (fr->point == GB_FRAME_SETUP) continue;
        t++;
        if (fr->point == GB_FRAME_PASS || done[fr->point]) continue;
        done[fr->point] = 1;
        if (GB_AT(b, GB_COLOR, fr->point) != fr->color) continue;
        out[(fr->color == us ? 0 : 1) * area + unpad(b, fr->point)] = expf(-0.1f * (float)t);
    }
}

void pl_ladder_strings(GoBoard *b, LadderSearch *s, float *out) {
    uint8_t captured[GB_MAX_P], escapes[GB_MAX_P];
    ladder_string_maps(b, s, captured, escapes);
    int area = area_of(b);
    for (int i = 0; i < area; i++) {
        int p = pad(b, i);
        out[i] = captured[p];
        out[area + i] = escapes[p];
    }
}

static inline float flag(int facts, int fact) { return (facts & fact) ? 1.0f : 0.0f; }

void pl_ladder_moves(GoBoard *b, LadderSearch *s, int us, float *out) {
    int size = b->size, W = b->W, area = area_of(b);
    for (int r = 0, i = 0; r < size; r++) {
        for (int p = (r + 1) * W + 1; p <= (r + 1) * W + size; p++, i++) {
            int both = ladder_quiet(b, p) ? 0 : ladder_point_both(b, s, p, us);
            out[i] = flag(both, LADDER_CAPTURED);
            out[area + i] = flag(both, LADDER_CAPTURED << LADDER_THEIRS);
            out[2 * area + i] = flag(both, LADDER_THREATENS);
            out[3 * area + i] = flag(both, LADDER_THREATENS << LADDER_THEIRS);
        }
    }
}

/* Breadth-first Manhattan distance from every stone of color, over the whole board. */
static void distances(const GoBoard *b, int color, int *dist) {
    int queue[GB_MAX_P], head = 0, tail = 0;
    for (int p = 0; p < b->W * b->W; p++) {
        dist[p] = 1 << 20;
        if (GB_AT(b, GB_COLOR, p) == color) {
            dist[p] = 0;
            queue[tail++] = p;
        }
    }
    while (head < tail) {
        int p = queue[head++];
        for (int d = 0; d < 4; d++) {
            int q = p + b->dirs[d];
            if (GB_AT(b, GB_COLOR, q) == GB_BORDER || dist[q] <= dist[p] + 1) continue;
            dist[q] = dist[p] + 1;
            queue[tail++] = q;
        }
    }
}

void pl_territory(GoBoard *b, int us, float *out) {
    int ours[GB_MAX_P], theirs[GB_MAX_P];
    distances(b, us, ours);
    distances(b, -us, theirs);
    int area = area_of(b);
    for (int i = 0; i < area; i++) {
        int p = pad(b, i);
        out[i] = ours[p] < theirs[p] ? 1.0f : 0.0f;
        out[area + i] = theirs[p] < ours[p] ? 1.0f : 0.0f;
    }
}
