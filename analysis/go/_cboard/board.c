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

static inline uint64_t zobrist(int p, int color) { return zobrist_table[color == GB_BLACK ? 0 : 1][p]; }

uint64_t gb_zobrist(int p, int color) { return zobrist(p, color); }

int gb_init(GoBoard *b, int size, int superko) {
    if (!zobrist_ready) zobrist_init();
    memset(b, 0, sizeof(*b));
    b->size = size;
    b->W = size + 2;
    b->superko = superko;
    /* A move journals at most: 1 per merged stone plus 3 per merge, per
     * captured stone 5 + 4 liberty updates, plus liberty counts. */
    b->play_room = 12 * size * size + 64;
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
    e->offset = arr * GB_MAX_P + p;
    e->old = *cell;
    *cell = (int16_t)value;
}

/* Journal a cell without changing it. */
static inline void jkeep(GoBoard *b, int arr, int p) { jset(b, arr, p, GB_AT(b, arr, p)); }

/* Journal the string cells of the stone at p before it leaves the board: a
 * later play there writes them without the journal (see board.h). */
static void keep_string_cells(GoBoard *b, int p) {
    jkeep(b, GB_HEAD, p);
    jkeep(b, GB_NEXT, p);
    jkeep(b, GB_LIBS, p);
    jkeep(b, GB_NSTONES, p);
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
    f->ataris[0] = b->ataris[0];
    f->ataris[1] = b->ataris[1];
}

int gb_undo(GoBoard *b) {
    if (b->flen == 0) return -1;
    GbFrame *f = &b->frames[--b->flen];
    int16_t *base = &b->cells[0][0];
    const GbJournalEntry *stop = b->journal + f->jmark;
    for (const GbJournalEntry *e = b->journal + b->jlen; e != stop;) {
        e--;
        base[e->offset] = e->old;
    }
    b->jlen = f->jmark;
    if (f->point > 0) GB_AT(b, GB_COLOR, f->point) = GB_EMPTY; /* a play: see put_stone */
    b->ko = f->ko;
    b->ko_color = f->ko_color;
    b->hash = f->hash;
    b->prisoners_black = f->prisoners_black;
    b->prisoners_white = f->prisoners_white;
    b->ataris[0] = f->ataris[0];
    b->ataris[1] = f->ataris[1];
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
        GB_FOR_DIRS(d) {
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

/* 1 if the empty point q is next to a stone of the string at head (of color). */
static inline int touches(const GoBoard *b, int q, int head, int color) {
    GB_FOR_DIRS(d) {
        int r = q + b->dirs[d];
        if (GB_AT(b, GB_COLOR, r) == color && GB_AT(b, GB_HEAD, r) == head) return 1;
    }
    return 0;
}

/* Empty neighbours of the empty point p that the string at head (of color)
 * does not touch: the liberties a stone at p would add to that string. */
static int fresh_liberties(const GoBoard *b, int p, int head, int color) {
    int n = 0;
    GB_FOR_DIRS(d) {
        int q = p + b->dirs[d];
        n += GB_AT(b, GB_COLOR, q) == GB_EMPTY && !touches(b, q, head, color);
    }
    return n;
}

/* Empty neighbours of the point s that the string at head (of color) does
 * not touch and that do not carry the mark m yet; marks them. */
static int fresh_marked(GoBoard *b, int s, int head, int color, uint32_t m) {
    int n = 0;
    GB_FOR_DIRS(d) {
        int q = s + b->dirs[d];
        if (GB_AT(b, GB_COLOR, q) != GB_EMPTY || b->mark[q] == m) continue;
        b->mark[q] = m;
        n += !touches(b, q, head, color);
    }
    return n;
}

/* What a stone of color at an empty point would touch. */
typedef struct {
    int empties;              /* empty neighbours */
    int friends[4], nfriends; /* distinct friendly strings (heads), in direction order */
    int enemies[4], nenemies; /* distinct enemy strings (heads), in direction order */
    int captures;             /* 1 if the point is an enemy string's last liberty */
    int friend_spare;         /* 1 if a friendly string has another liberty */
} Around;

static inline int add_head(int *heads, int n, int h) {
    for (int i = 0; i < n; i++)
        if (heads[i] == h) return n;
    heads[n] = h;
    return n + 1;
}

static inline void look_around(const GoBoard *b, int p, int color, Around *a) {
    a->empties = a->nfriends = a->nenemies = a->captures = a->friend_spare = 0;
    GB_FOR_DIRS(d) {
        int q = p + b->dirs[d], c = GB_AT(b, GB_COLOR, q);
        if (c == GB_EMPTY) {
            a->empties++;
        } else if (c == color || c == -color) {
            int h = GB_AT(b, GB_HEAD, q), libs = GB_AT(b, GB_LIBS, h);
            if (c == color) {
                a->nfriends = add_head(a->friends, a->nfriends, h);
                a->friend_spare |= libs > 1;
            } else {
                a->nenemies = add_head(a->enemies, a->nenemies, h);
                a->captures |= libs == 1;
            }
        }
    }
}

static inline int is_suicide(const Around *a) { return !a->empties && !a->captures && !a->friend_spare; }

/* Liberties of the string of several friendly strings joined by a stone of
 * color at the empty point p: those of the longest (less p), plus the empty
 * points next to p or to the other strings that the longest does not touch.
 * The walk covers the shorter strings only. */
static int joined_liberties(GoBoard *b, int p, int color, const Around *a) {
    int longest = a->friends[0];
    for (int i = 1; i < a->nfriends; i++)
        if (GB_AT(b, GB_NSTONES, a->friends[i]) > GB_AT(b, GB_NSTONES, longest)) longest = a->friends[i];
    uint32_t m = next_mark(b);
    b->mark[p] = m;
    int libs = GB_AT(b, GB_LIBS, longest) - 1 + fresh_marked(b, p, longest, color, m);
    for (int i = 0; i < a->nfriends; i++) {
        int h = a->friends[i], s = h;
        if (h == longest) continue;
        do {
            libs += fresh_marked(b, s, longest, color, m);
            s = GB_AT(b, GB_NEXT, s);
        } while (s != h);
    }
    return libs;
}

/* Liberties of the string a stone of color at the empty point p would be in,
 * from look_around's answer, before it captures anything (0 for a suicide):
 * each stone it captures next to that string adds one. */
static inline int libs_before_captures(GoBoard *b, int p, int color, const Around *a) {
    if (a->nfriends == 0) return a->empties;
    if (a->nfriends > 1) return joined_liberties(b, p, color, a);
    /* Joining one string: it loses p and gains what p brings. */
    int h = a->friends[0];
    return GB_AT(b, GB_LIBS, h) - 1 + fresh_liberties(b, p, h, color);
}

int gb_libs_after(GoBoard *b, int p, int color) {
    Around a;
    look_around(b, p, color, &a);
    return a.captures ? -1 : libs_before_captures(b, p, color, &a);
}

/* gb_liberty_points for one or two points (want), which need no marks. */
static int first_liberties(const GoBoard *b, int head, int *out, int want) {
    int n = 0, s = head;
    for (;;) {
        GB_FOR_DIRS(d) {
            int q = s + b->dirs[d];
            if (GB_AT(b, GB_COLOR, q) != GB_EMPTY || (n == 1 && q == out[0])) continue;
            out[n++] = q;
            if (n == want) return n;
        }
        s = GB_AT(b, GB_NEXT, s);
    }
}

int gb_liberty_points(GoBoard *b, int p, int *out, int max) {
    int color = GB_AT(b, GB_COLOR, p);
    if (color != GB_BLACK && color != GB_WHITE) return 0;
    int head = GB_AT(b, GB_HEAD, p);
    /* The count is known, so the walk stops as soon as it has all it wants;
     * the points still come out in walk order from the head. */
    int want = GB_AT(b, GB_LIBS, head) < max ? GB_AT(b, GB_LIBS, head) : max;
    if (want <= 0) return 0;
    if (want <= 2) return first_liberties(b, head, out, want);
    uint32_t m = next_mark(b);
    int n = 0, s = head;
    do {
        GB_FOR_DIRS(d) {
            int q = s + b->dirs[d];
            if (GB_AT(b, GB_COLOR, q) == GB_EMPTY && b->mark[q] != m) {
                b->mark[q] = m;
                out[n++] = q;
                if (n == want) return n;
            }
        }
        s = GB_AT(b, GB_NEXT, s);
    } while (s != head);
    return n;
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

static inline int *ataris_of(GoBoard *b, int color) { return &b->ataris[color == GB_BLACK ? 0 : 1]; }

/* Count in b->ataris a string of color whose liberties go from old to now. */
static inline void atari_change(GoBoard *b, int color, int old, int now) {
    *ataris_of(b, color) += (now == 1) - (old == 1);
}

/* Remove the string at head; each freed point becomes a liberty of the
 * distinct neighbouring strings of the other colour.  Those other than the
 * string at mover (whose count its play redoes) update b->ataris.  Returns
 * stones removed. */
static int remove_string(GoBoard *b, int head, int mover) {
    int color = GB_AT(b, GB_COLOR, head);
    int n = 0, s = head;
    do {
        int next = GB_AT(b, GB_NEXT, s);
        keep_string_cells(b, s);
        jset(b, GB_COLOR, s, GB_EMPTY);
        b->hash ^= zobrist(s, color);
        int seen[4], nseen = 0;
        GB_FOR_DIRS(d) {
            int q = s + b->dirs[d];
            if (GB_AT(b, GB_COLOR, q) != -color) continue;
            int h = GB_AT(b, GB_HEAD, q), dup = 0;
            for (int i = 0; i < nseen; i++) dup |= seen[i] == h;
            if (dup) continue;
            seen[nseen++] = h;
            int libs = GB_AT(b, GB_LIBS, h);
            if (h != mover) atari_change(b, -color, libs, libs + 1);
            jset(b, GB_LIBS, h, libs + 1);
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

/* Put a lone stone on the empty point p of a play, without the journal: undo
 * empties the point of a play frame, and its string cells are scratch until
 * then (see board.h). */
static inline void put_stone(GoBoard *b, int p, int color) {
    GB_AT(b, GB_COLOR, p) = (int16_t)color;
    GB_AT(b, GB_HEAD, p) = (int16_t)p;
    GB_AT(b, GB_NEXT, p) = (int16_t)p;
    GB_AT(b, GB_NSTONES, p) = 1;
}

/* merge(b, p, h) for the lone stone just put at p, journaling only the cells
 * of the string at h: a string of one stone joins p, a longer one takes p in
 * right after its head. */
static inline void join_lone_stone(GoBoard *b, int p, int h) {
    if (GB_AT(b, GB_NSTONES, h) == 1) {
        jset(b, GB_HEAD, h, p);
        jset(b, GB_NEXT, h, p);
        GB_AT(b, GB_NEXT, p) = (int16_t)h;
        GB_AT(b, GB_NSTONES, p) = 2;
    } else {
        GB_AT(b, GB_HEAD, p) = (int16_t)h;
        GB_AT(b, GB_NEXT, p) = GB_AT(b, GB_NEXT, h);
        jset(b, GB_NEXT, h, p);
        jset(b, GB_NSTONES, h, GB_AT(b, GB_NSTONES, h) + 1);
    }
}

/* The end of a play: undo it if superko forbids the position, else set the
 * ko.  Returns what gb_play returns. */
static int settle(GoBoard *b, int color, int head, int libs, int captured, int captured_point) {
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
    return captured;
}

/* play_simple's answer for a move it leaves to the general path: no simple
 * move returns a positive count, as it captures nothing. */
enum { NOT_SIMPLE = 1 };

/* gb_play, after the occupied and ko checks, for the bulk of reading: a move
 * that captures nothing and touches at most one friendly string.  The four
 * neighbours are looked at once, each enemy string found by the heads of
 * the earlier ones; returns NOT_SIMPLE for any other move. */
static int play_simple(GoBoard *b, int p, int color) {
    int empties = 0, friend = 0, enemy[4];
    GB_FOR_DIRS(d) {
        int q = p + b->dirs[d], c = GB_AT(b, GB_COLOR, q), h = GB_AT(b, GB_HEAD, q);
        enemy[d] = 0;
        if (c == GB_EMPTY) {
            empties++;
        } else if (c == color) {
            if (friend && h != friend) return NOT_SIMPLE;
            friend = h;
        } else if (c == -color) {
            if (GB_AT(b, GB_LIBS, h) == 1) return NOT_SIMPLE;
            enemy[d] = h;
        }
    }
    if (!empties && (!friend || GB_AT(b, GB_LIBS, friend) == 1)) return GB_ILLEGAL_SUICIDE;
    int libs = friend ? GB_AT(b, GB_LIBS, friend) - 1 + fresh_liberties(b, p, friend, color) : empties;
    push_frame(b, p, color);
    put_stone(b, p, color);
    b->hash ^= zobrist(p, color);
    int *ours = ataris_of(b, color), *theirs = ataris_of(b, -color), head = p;
    if (friend) {
        *ours -= GB_AT(b, GB_LIBS, friend) == 1;
        join_lone_stone(b, p, friend);
        head = GB_AT(b, GB_HEAD, p);
    }
    if (head == p)
        GB_AT(b, GB_LIBS, p) = (int16_t)libs; /* a scratch cell until this move */
    else
        jset(b, GB_LIBS, head, libs);
    *ours += libs == 1;
    GB_FOR_DIRS(d) {
        int h = enemy[d], seen = 0;
        for (int e = 0; e < d; e++) seen |= enemy[e] == h;
        if (!h || seen) continue;
        int left = GB_AT(b, GB_LIBS, h) - 1;
        *theirs += left == 1;
        jset(b, GB_LIBS, h, left);
    }
    return settle(b, color, head, libs, 0, 0);
}

/* gb_play, after the occupied and ko checks, for any move.  Kept out of line
 * so that gb_play stays small around play_simple. */
static __attribute__((noinline)) int play_general(GoBoard *b, int p, int color) {
    Around a;
    look_around(b, p, color, &a);
    if (is_suicide(&a)) return GB_ILLEGAL_SUICIDE;
    int libs = libs_before_captures(b, p, color, &a);
    push_frame(b, p, color);
    put_stone(b, p, color);
    b->hash ^= zobrist(p, color);

    /* Friendly strings join in direction order; merge keeps the larger head.
     * The joined string's atari is counted once its liberties are known. */
    int *ours = ataris_of(b, color), *theirs = ataris_of(b, -color);
    for (int i = 0; i < a.nfriends; i++) {
        *ours -= GB_AT(b, GB_LIBS, a.friends[i]) == 1;
        if (i == 0)
            join_lone_stone(b, p, a.friends[0]);
        else
            merge(b, GB_AT(b, GB_HEAD, p), a.friends[i]);
    }
    int head = GB_AT(b, GB_HEAD, p);
    if (head == p)
        GB_AT(b, GB_LIBS, p) = (int16_t)libs; /* a scratch cell until this move */
    else
        jset(b, GB_LIBS, head, libs);
    /* Captures give the new string one liberty per stone next to it. */
    int captured = 0, captured_point = 0;
    for (int i = 0; i < a.nenemies; i++) {
        int h = a.enemies[i];
        int left = GB_AT(b, GB_LIBS, h) - 1;
        *theirs += (left == 1) - (left == 0);
        jset(b, GB_LIBS, h, left);
        if (left == 0) {
            captured += remove_string(b, h, head);
            captured_point = h;
        }
    }
    libs = GB_AT(b, GB_LIBS, head);
    *ours += libs == 1;
    if (color == GB_BLACK)
        b->prisoners_black += captured;
    else
        b->prisoners_white += captured;
    return settle(b, color, head, libs, captured, captured_point);
}

int gb_play(GoBoard *b, int p, int color) {
    if (GB_AT(b, GB_COLOR, p) != GB_EMPTY) return GB_ILLEGAL_OCCUPIED;
    if (p == b->ko && color == b->ko_color) return GB_ILLEGAL_KO;
    if (reserve(b, b->play_room) < 0) return GB_ERR_NOMEM;
    int simple = play_simple(b, p, color);
    return simple != NOT_SIMPLE ? simple : play_general(b, p, color);
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

/* Rebuild strings, liberty counts and b->ataris from the colours alone
 * (journaled; the setup frame keeps the old ataris). */
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
    b->ataris[0] = b->ataris[1] = 0;
    for (int r = 1; r <= b->size; r++) {
        for (int c = 1; c <= b->size; c++) {
            int p = r * b->W + c;
            int color = GB_AT(b, GB_COLOR, p);
            if ((color != GB_BLACK && color != GB_WHITE) || GB_AT(b, GB_HEAD, p) != p) continue;
            int libs = count_libs(b, p);
            jset(b, GB_LIBS, p, libs);
            atari_change(b, color, 0, libs);
        }
    }
}

int gb_setup(GoBoard *b, int n, const int *points, const int *colors) {
    int area = b->size * b->size;
    if (reserve(b, 5 * n + 20 * area + 16) < 0) return -1;
    push_frame(b, GB_FRAME_SETUP, 0);
    for (int i = 0; i < n; i++) {
        int p = points[i], old = GB_AT(b, GB_COLOR, p);
        if (old == GB_BLACK || old == GB_WHITE) {
            keep_string_cells(b, p);
            b->hash ^= zobrist(p, old);
        }
        jset(b, GB_COLOR, p, colors[i]);
        if (colors[i] == GB_BLACK || colors[i] == GB_WHITE) b->hash ^= zobrist(p, colors[i]);
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

/* The liberty that saves a string of color in atari by extending (to 2+ liberties or a capture), or 0. */
static int saving_liberty(GoBoard *b, int p, int color) {
    int lib;
    if (gb_liberty_points(b, p, &lib, 1) != 1) return 0;
    int after = gb_libs_after(b, lib, color);
    return after == -1 || after >= 2 ? lib : 0;
}

/* A playout's answer to the opponent's move at last: capture the string just
 * played if it is in atari, else save one of color's strings next to it that
 * it put in atari.  Returns the point, or 0 when there is none. */
static int tactical_reply(GoBoard *b, int last, int color) {
    int lib;
    if (gb_libs(b, last) == 1 && gb_liberty_points(b, last, &lib, 1) == 1) return lib;
    GB_FOR_DIRS(d) {
        int q = last + b->dirs[d];
        if (GB_AT(b, GB_COLOR, q) == color && gb_libs(b, q) == 1) {
            int save = saving_liberty(b, q, color);
            if (save) return save;
        }
    }
    return 0;
}

/* 1 if color playing p would put a string of two or more stones in atari without capturing. */
static int self_atari(GoBoard *b, int p, int color) {
    if (gb_libs_after(b, p, color) != 1) return 0;
    GB_FOR_DIRS(d) if (GB_AT(b, GB_COLOR, p + b->dirs[d]) == color) return 1;
    return 0;
}

int gb_playout(GoBoard *b, int to_play, uint64_t *rng, int max_moves) {
    int cand[GB_MAX_P];
    int played = 0, passes = 0, color = to_play, last = 0;
    while (played < max_moves && passes < 2) {
        int moved = 0;
        int reply = last ? tactical_reply(b, last, color) : 0;
        if (reply) {
            int r = gb_play(b, reply, color);
            if (r == GB_ERR_NOMEM) return -1;
            if (r >= 0) moved = reply;
        }
        int n = 0;
        if (!moved)
            for (int r = 1; r <= b->size; r++)
                for (int c = 1; c <= b->size; c++) {
                    int p = r * b->W + c;
                    if (GB_AT(b, GB_COLOR, p) == GB_EMPTY) cand[n++] = p;
                }
        while (!moved && n > 0) {
            int i = (int)(xorshift(rng) % (uint64_t)n);
            int p = cand[i];
            cand[i] = cand[--n];
            if (gb_is_eye(b, p, color) || self_atari(b, p, color)) continue;
            int r = gb_play(b, p, color);
            if (r == GB_ERR_NOMEM) return -1;
            if (r >= 0) moved = p;
        }
        if (!moved && gb_pass(b, color) < 0) return -1;
        passes = moved ? 0 : passes + 1;
        last = moved;
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
