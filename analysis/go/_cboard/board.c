/* Go board core; see board.h for the representation. */
#include "board.h"

#include <stdlib.h>
#include <string.h>

static uint64_t zobrist_table[2][GB_MAX_P];
static int zobrist_ready = 0;

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void zobrist_init(void) {
    uint64_t state = 0x5EED0F60A12DULL;
    for (int c = 0; c < 2; c++)
        for (int p = 0; p < GB_MAX_P; p++) zobrist_table[c][p] = splitmix64(&state);
    zobrist_ready = 1;
}

uint64_t gb_zobrist(int p, int color) { return zobrist_table[color == GB_BLACK ? 0 : 1][p]; }

int gb_init(GoBoard *b, int size, int superko) {
    if (!zobrist_ready) zobrist_init();
    memset(b, 0, sizeof(*b));
    b->size = size;
    b->W = size + 2;
    b->superko = superko;
    b->dirs[0] = -b->W;
    b->dirs[1] = b->W;
    b->dirs[2] = -1;
    b->dirs[3] = 1;
    for (int p = 0; p < b->W * b->W; p++) {
        int r = p / b->W, c = p % b->W;
        int inside = r >= 1 && r <= size && c >= 1 && c <= size;
        GB_AT(b, GB_COLOR, p) = inside ? GB_EMPTY : GB_BORDER;
    }
    b->jcap = 1024;
    b->fcap = 256;
    b->journal = malloc(sizeof(GbJournalEntry) * b->jcap);
    b->frames = malloc(sizeof(GbFrame) * b->fcap);
    if (!b->journal || !b->frames) {
        gb_free(b);
        return -1;
    }
    return 0;
}

void gb_free(GoBoard *b) {
    free(b->journal);
    free(b->frames);
    b->journal = NULL;
    b->frames = NULL;
}

int gb_copy(GoBoard *dst, const GoBoard *src) {
    memcpy(dst, src, sizeof(*dst));
    dst->journal = malloc(sizeof(GbJournalEntry) * src->jcap);
    dst->frames = malloc(sizeof(GbFrame) * src->fcap);
    if (!dst->journal || !dst->frames) {
        gb_free(dst);
        return -1;
    }
    memcpy(dst->journal, src->journal, sizeof(GbJournalEntry) * src->jlen);
    memcpy(dst->frames, src->frames, sizeof(GbFrame) * src->flen);
    return 0;
}

static int reserve(GoBoard *b, int journal_entries) {
    if (b->jlen + journal_entries > b->jcap) {
        int cap = b->jcap;
        while (b->jlen + journal_entries > cap) cap *= 2;
        GbJournalEntry *j = realloc(b->journal, sizeof(GbJournalEntry) * cap);
        if (!j) return -1;
        b->journal = j;
        b->jcap = cap;
    }
    if (b->flen + 1 > b->fcap) {
        GbFrame *f = realloc(b->frames, sizeof(GbFrame) * b->fcap * 2);
        if (!f) return -1;
        b->frames = f;
        b->fcap *= 2;
    }
    return 0;
}

/* Journaled write; reserve() must have made room. */
static inline void jset(GoBoard *b, int arr, int p, int value) {
    int16_t *cell = &b->cells[arr][p];
    GbJournalEntry *e = &b->journal[b->jlen++];
    e->offset = (int32_t)(cell - &b->cells[0][0]);
    e->old = *cell;
    *cell = (int16_t)value;
}

static void push_frame(GoBoard *b, int point, int color) {
    GbFrame *f = &b->frames[b->flen++];
    f->jmark = b->jlen;
    f->point = point;
    f->color = color;
    f->ko = b->ko;
    f->ko_color = b->ko_color;
    f->hash = b->hash;
    f->prisoners_black = b->prisoners_black;
    f->prisoners_white = b->prisoners_white;
}

int gb_undo(GoBoard *b) {
    if (b->flen == 0) return -1;
    GbFrame *f = &b->frames[--b->flen];
    int16_t *base = &b->cells[0][0];
    while (b->jlen > f->jmark) {
        GbJournalEntry *e = &b->journal[--b->jlen];
        base[e->offset] = e->old;
    }
    b->ko = f->ko;
    b->ko_color = f->ko_color;
    b->hash = f->hash;
    b->prisoners_black = f->prisoners_black;
    b->prisoners_white = f->prisoners_white;
    return 0;
}

static inline uint32_t next_mark(GoBoard *b) {
    if (++b->markgen == 0) {
        memset(b->mark, 0, sizeof(b->mark));
        b->markgen = 1;
    }
    return b->markgen;
}

static int count_libs(GoBoard *b, int head) {
    uint32_t m = next_mark(b);
    int n = 0, s = head;
    do {
        for (int d = 0; d < 4; d++) {
            int q = s + b->dirs[d];
            if (GB_AT(b, GB_COLOR, q) == GB_EMPTY && b->mark[q] != m) {
                b->mark[q] = m;
                n++;
            }
        }
        s = GB_AT(b, GB_NEXT, s);
    } while (s != head);
    return n;
}

int gb_liberty_points(GoBoard *b, int p, int *out, int max) {
    int color = GB_AT(b, GB_COLOR, p);
    if (color != GB_BLACK && color != GB_WHITE) return 0;
    uint32_t m = next_mark(b);
    int head = GB_AT(b, GB_HEAD, p), n = 0, s = head;
    do {
        for (int d = 0; d < 4; d++) {
            int q = s + b->dirs[d];
            if (GB_AT(b, GB_COLOR, q) == GB_EMPTY && b->mark[q] != m) {
                b->mark[q] = m;
                if (n < max) out[n] = q;
                n++;
            }
        }
        s = GB_AT(b, GB_NEXT, s);
    } while (s != head);
    return n < max ? n : max;
}

int gb_string_points(const GoBoard *b, int p, int *out) {
    int color = GB_AT(b, GB_COLOR, p);
    if (color != GB_BLACK && color != GB_WHITE) return 0;
    int head = GB_AT(b, GB_HEAD, p), n = 0, s = head;
    do {
        out[n++] = s;
        s = GB_AT(b, GB_NEXT, s);
    } while (s != head);
    return n;
}

/* Merge string b2 into the string of a; the larger keeps its head. */
static void merge(GoBoard *b, int h1, int h2) {
    if (GB_AT(b, GB_NSTONES, h1) < GB_AT(b, GB_NSTONES, h2)) {
        int t = h1;
        h1 = h2;
        h2 = t;
    }
    int s = h2;
    do {
        jset(b, GB_HEAD, s, h1);
        s = GB_AT(b, GB_NEXT, s);
    } while (s != h2);
    int n1 = GB_AT(b, GB_NEXT, h1), n2 = GB_AT(b, GB_NEXT, h2);
    jset(b, GB_NEXT, h1, n2);
    jset(b, GB_NEXT, h2, n1);
    jset(b, GB_NSTONES, h1, GB_AT(b, GB_NSTONES, h1) + GB_AT(b, GB_NSTONES, h2));
}

/* Remove the string at head; each freed point becomes a liberty of the
 * distinct neighbouring strings of the other colour. Returns stones removed. */
static int remove_string(GoBoard *b, int head) {
    int color = GB_AT(b, GB_COLOR, head);
    int n = 0, s = head;
    do {
        int next = GB_AT(b, GB_NEXT, s);
        jset(b, GB_COLOR, s, GB_EMPTY);
        b->hash ^= gb_zobrist(s, color);
        int seen[4], nseen = 0;
        for (int d = 0; d < 4; d++) {
            int q = s + b->dirs[d];
            if (GB_AT(b, GB_COLOR, q) != -color) continue;
            int h = GB_AT(b, GB_HEAD, q), dup = 0;
            for (int i = 0; i < nseen; i++) dup |= seen[i] == h;
            if (dup) continue;
            seen[nseen++] = h;
            jset(b, GB_LIBS, h, GB_AT(b, GB_LIBS, h) + 1);
        }
        n++;
        s = next;
    } while (s != head);
    return n;
}

int gb_hash_seen(const GoBoard *b, uint64_t h) {
    for (int i = b->flen - 1; i >= 0; i--)
        if (b->frames[i].hash == h) return 1;
    return 0;
}

int gb_play(GoBoard *b, int p, int color) {
    if (GB_AT(b, GB_COLOR, p) != GB_EMPTY) return GB_ILLEGAL_OCCUPIED;
    if (p == b->ko && color == b->ko_color) return GB_ILLEGAL_KO;
    /* A move writes at most: 4 for the stone, 3 per merged stone, and per
     * captured stone 1 + 4 liberty updates, plus liberty counts. */
    int area = b->size * b->size;
    if (reserve(b, 8 * area + 64) < 0) return GB_ERR_NOMEM;
    push_frame(b, p, color);

    jset(b, GB_COLOR, p, color);
    jset(b, GB_HEAD, p, p);
    jset(b, GB_NEXT, p, p);
    jset(b, GB_NSTONES, p, 1);
    b->hash ^= gb_zobrist(p, color);

    int enemies[4], nenemies = 0;
    for (int d = 0; d < 4; d++) {
        int q = p + b->dirs[d];
        int c = GB_AT(b, GB_COLOR, q);
        if (c == color) {
            int hq = GB_AT(b, GB_HEAD, q), hp = GB_AT(b, GB_HEAD, p);
            if (hq != hp) merge(b, hp, hq);
        } else if (c == -color) {
            int h = GB_AT(b, GB_HEAD, q), dup = 0;
            for (int i = 0; i < nenemies; i++) dup |= enemies[i] == h;
            if (!dup) enemies[nenemies++] = h;
        }
    }
    int captured = 0, captured_point = 0;
    for (int i = 0; i < nenemies; i++) {
        int h = enemies[i];
        int libs = GB_AT(b, GB_LIBS, h) - 1;
        jset(b, GB_LIBS, h, libs);
        if (libs == 0) {
            captured += remove_string(b, h);
            captured_point = h;
        }
    }
    int head = GB_AT(b, GB_HEAD, p);
    int libs = count_libs(b, head);
    jset(b, GB_LIBS, head, libs);
    if (libs == 0) {
        gb_undo(b);
        return GB_ILLEGAL_SUICIDE;
    }
    if (b->superko && gb_hash_seen(b, b->hash)) {
        gb_undo(b);
        return GB_ILLEGAL_SUPERKO;
    }
    if (captured == 1 && GB_AT(b, GB_NSTONES, head) == 1 && libs == 1) {
        b->ko = captured_point;
        b->ko_color = -color;
    } else {
        b->ko = 0;
        b->ko_color = 0;
    }
    if (color == GB_BLACK)
        b->prisoners_black += captured;
    else
        b->prisoners_white += captured;
    return captured;
}

int gb_legal(GoBoard *b, int p, int color) {
    if (GB_AT(b, GB_COLOR, p) != GB_EMPTY) return GB_ILLEGAL_OCCUPIED;
    if (p == b->ko && color == b->ko_color) return GB_ILLEGAL_KO;
    /* Any empty neighbour makes the move legal unless superko could forbid it;
     * a repeat needs a capture, and a capture needs a neighbour in atari. */
    int quick = 0;
    for (int d = 0; d < 4; d++) {
        int q = p + b->dirs[d];
        if (GB_AT(b, GB_COLOR, q) == GB_EMPTY) {
            quick = 1;
            break;
        }
    }
    if (quick && !b->superko) return 0;
    int r = gb_play(b, p, color);
    if (r < 0) return r;
    gb_undo(b);
    return 0;
}

int gb_pass(GoBoard *b, int color) {
    if (reserve(b, 0) < 0) return -1;
    push_frame(b, GB_FRAME_PASS, color);
    b->ko = 0;
    b->ko_color = 0;
    return 0;
}

/* Rebuild strings and liberty counts from the colours alone (journaled). */
static void rebuild_strings(GoBoard *b) {
    for (int r = 1; r <= b->size; r++) {
        for (int c = 1; c <= b->size; c++) {
            int p = r * b->W + c;
            int color = GB_AT(b, GB_COLOR, p);
            if (color != GB_BLACK && color != GB_WHITE) continue;
            jset(b, GB_HEAD, p, p);
            jset(b, GB_NEXT, p, p);
            jset(b, GB_NSTONES, p, 1);
            int up = p - b->W, left = p - 1;
            if (GB_AT(b, GB_COLOR, up) == color) merge(b, GB_AT(b, GB_HEAD, up), GB_AT(b, GB_HEAD, p));
            if (GB_AT(b, GB_COLOR, left) == color && GB_AT(b, GB_HEAD, left) != GB_AT(b, GB_HEAD, p))
                merge(b, GB_AT(b, GB_HEAD, left), GB_AT(b, GB_HEAD, p));
        }
    }
    for (int r = 1; r <= b->size; r++) {
        for (int c = 1; c <= b->size; c++) {
            int p = r * b->W + c;
            int color = GB_AT(b, GB_COLOR, p);
            if ((color == GB_BLACK || color == GB_WHITE) && GB_AT(b, GB_HEAD, p) == p)
                jset(b, GB_LIBS, p, count_libs(b, p));
        }
    }
}

int gb_setup(GoBoard *b, int n, const int *points, const int *colors) {
    int area = b->size * b->size;
    if (reserve(b, n + 20 * area + 16) < 0) return -1;
    push_frame(b, GB_FRAME_SETUP, 0);
    for (int i = 0; i < n; i++) {
        int p = points[i], old = GB_AT(b, GB_COLOR, p);
        if (old == GB_BLACK || old == GB_WHITE) b->hash ^= gb_zobrist(p, old);
        jset(b, GB_COLOR, p, colors[i]);
        if (colors[i] == GB_BLACK || colors[i] == GB_WHITE) b->hash ^= gb_zobrist(p, colors[i]);
    }
    rebuild_strings(b);
    b->ko = 0;
    b->ko_color = 0;
    return 0;
}

int gb_is_eye(const GoBoard *b, int p, int color) {
    if (GB_AT(b, GB_COLOR, p) != GB_EMPTY) return 0;
    for (int d = 0; d < 4; d++) {
        int c = GB_AT(b, GB_COLOR, p + b->dirs[d]);
        if (c != color && c != GB_BORDER) return 0;
    }
    int diagonals[4] = {-b->W - 1, -b->W + 1, b->W - 1, b->W + 1};
    int enemy = 0, edge = 0;
    for (int d = 0; d < 4; d++) {
        int c = GB_AT(b, GB_COLOR, p + diagonals[d]);
        enemy += c == -color;
        edge |= c == GB_BORDER;
    }
    return enemy == 0 || (!edge && enemy == 1);
}

static uint64_t xorshift(uint64_t *s) {
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

int gb_playout(GoBoard *b, int to_play, uint64_t *rng, int max_moves) {
    int cand[GB_MAX_P];
    int played = 0, passes = 0, color = to_play;
    while (played < max_moves && passes < 2) {
        int n = 0;
        for (int r = 1; r <= b->size; r++)
            for (int c = 1; c <= b->size; c++) {
                int p = r * b->W + c;
                if (GB_AT(b, GB_COLOR, p) == GB_EMPTY) cand[n++] = p;
            }
        int moved = 0;
        while (n > 0) {
            int i = (int)(xorshift(rng) % (uint64_t)n);
            int p = cand[i];
            cand[i] = cand[--n];
            if (gb_is_eye(b, p, color)) continue;
            int r = gb_play(b, p, color);
            if (r == GB_ERR_NOMEM) return -1;
            if (r >= 0) {
                moved = 1;
                break;
            }
        }
        if (!moved && gb_pass(b, color) < 0) return -1;
        passes = moved ? 0 : passes + 1;
        played++;
        color = -color;
    }
    return played;
}

void gb_area_owner(GoBoard *b, int8_t *owner) {
    int stack[GB_MAX_P];
    uint32_t m = next_mark(b);
    for (int p = 0; p < b->W * b->W; p++) {
        int c = GB_AT(b, GB_COLOR, p);
        owner[p] = c == GB_BORDER ? 0 : (int8_t)c;
    }
    for (int start = 0; start < b->W * b->W; start++) {
        if (GB_AT(b, GB_COLOR, start) != GB_EMPTY || b->mark[start] == m) continue;
        int top = 0, n = 0, seen_black = 0, seen_white = 0;
        int region[GB_MAX_P];
        stack[top++] = start;
        b->mark[start] = m;
        while (top > 0) {
            int p = stack[--top];
            region[n++] = p;
            for (int d = 0; d < 4; d++) {
                int q = p + b->dirs[d], c = GB_AT(b, GB_COLOR, q);
                if (c == GB_BLACK) seen_black = 1;
                else if (c == GB_WHITE) seen_white = 1;
                else if (c == GB_EMPTY && b->mark[q] != m) {
                    b->mark[q] = m;
                    stack[top++] = q;
                }
            }
        }
        int8_t v = seen_black && !seen_white ? GB_BLACK : seen_white && !seen_black ? GB_WHITE : 0;
        for (int i = 0; i < n; i++) owner[region[i]] = v;
    }
}
