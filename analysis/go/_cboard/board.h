/* Go board core: incremental strings and liberties, Zobrist hash, make/undo.
 *
 * Points are indices into a padded (size + 2) x (size + 2) array with a ring of
 * BORDER cells, so neighbours never need bounds checks.  Writes to the board
 * arrays go through a journal, so undo is exact and costs as much as the move
 * did.  The string cells (head, next, libs, nstones) of an empty point are
 * scratch: a play writes those of its own point without the journal, so
 * whatever empties a stone (capture, setup) journals them first, and undo
 * still restores every stone's cells.  A play's colour write skips the
 * journal too: undoing a play frame empties its point.  This file has no Python in it; module.c
 * wraps it.
 */
#ifndef GO_BOARD_H
#define GO_BOARD_H

#include <stdint.h>

#define GB_MAX_SIZE 25
#define GB_MAX_W (GB_MAX_SIZE + 2)
#define GB_MAX_P (GB_MAX_W * GB_MAX_W)

enum { GB_EMPTY = 0, GB_BLACK = 1, GB_WHITE = -1, GB_BORDER = 2 };

/* Return codes of gb_play: >= 0 is the number of stones captured. */
enum {
    GB_ILLEGAL_OCCUPIED = -1,
    GB_ILLEGAL_SUICIDE = -2,
    GB_ILLEGAL_KO = -3,
    GB_ILLEGAL_SUPERKO = -4,
    GB_ERR_NOMEM = -100,
};

/* Frame kinds besides a board point. */
enum { GB_FRAME_PASS = -1, GB_FRAME_SETUP = -2 };

/* The five per-point arrays, journaled as one block of int16. */
enum { GB_COLOR = 0, GB_HEAD = 1, GB_NEXT = 2, GB_LIBS = 3, GB_NSTONES = 4, GB_NARRAYS = 5 };

typedef struct {
    int32_t offset; /* index into the flat cells block */
    int16_t old;
} GbJournalEntry;

typedef struct {
    int jmark;      /* journal length before the move */
    int point;      /* padded point, GB_FRAME_PASS or GB_FRAME_SETUP */
    int color;
    int ko;         /* ko state before the move */
    int ko_color;
    uint64_t hash;  /* position hash before the move */
    int prisoners_black;
    int prisoners_white;
    int ataris[2];
} GbFrame;

typedef struct {
    int size;
    int W;                       /* padded width: size + 2 */
    int16_t cells[GB_NARRAYS][GB_MAX_P];
    int ko;                      /* padded point forbidden to ko_color, or 0 */
    int ko_color;
    uint64_t hash;               /* positional hash: stones only */
    int prisoners_black;         /* stones captured by black */
    int prisoners_white;
    int ataris[2];               /* strings with one liberty: black, white (see gb_ataris) */
    int superko;                 /* 1: positional superko is enforced */
    int play_room;               /* journal entries one play may need */
    GbJournalEntry *journal;
    int jlen, jcap;
    GbFrame *frames;
    int flen, fcap;
    uint32_t mark[GB_MAX_P];
    uint32_t markgen;
    int dirs[4];
} GoBoard;

#define GB_AT(b, arr, p) ((b)->cells[(arr)][(p)])

/* for (d = 0..3) over the directions of b->dirs, unrolled: the hot loops
 * then keep their counters in registers. */
#define GB_FOR_DIRS(d) _Pragma("GCC unroll 4") for (int d = 0; d < 4; d++)

/* Returns 0 on success, -1 if out of memory. */
int gb_init(GoBoard *b, int size, int superko);
void gb_free(GoBoard *b);
/* Deep copy into an uninitialised dst. Returns 0, or -1 if out of memory. */
int gb_copy(GoBoard *dst, const GoBoard *src);

static inline int gb_point(const GoBoard *b, int row, int col) { return (row + 1) * b->W + col + 1; }

/* Play a stone: >= 0 captured count, or a GB_ILLEGAL_* code (board unchanged). */
int gb_play(GoBoard *b, int p, int color);
/* Legality without changing the board: 0 legal or a GB_ILLEGAL_* code. */
int gb_legal(GoBoard *b, int p, int color);
/* Record a pass. Returns 0, or -1 if out of memory. */
int gb_pass(GoBoard *b, int color);
/* Put stones (colors[i] may be GB_EMPTY) as one undoable setup frame. Returns 0 or -1. */
int gb_setup(GoBoard *b, int n, const int *points, const int *colors);
/* Take back the last frame. Returns 0, or -1 if there is nothing to undo. */
int gb_undo(GoBoard *b);

/* Number of strings of color with exactly one liberty. */
static inline int gb_ataris(const GoBoard *b, int color) { return b->ataris[color == GB_BLACK ? 0 : 1]; }

/* Liberties of the string at p (0 for an empty point). */
static inline int gb_libs(const GoBoard *b, int p) {
    return GB_AT(b, GB_COLOR, p) == GB_BLACK || GB_AT(b, GB_COLOR, p) == GB_WHITE
               ? GB_AT(b, GB_LIBS, GB_AT(b, GB_HEAD, p)) : 0;
}
/* Liberties of the string a stone of color would be in after playing the
 * empty point p (0 for a suicide), told without playing; -1 if the move
 * captures. */
int gb_libs_after(GoBoard *b, int p, int color);
/* Write up to max liberty points of the string at p into out; returns the count written. */
int gb_liberty_points(GoBoard *b, int p, int *out, int max);
/* Write the stones of the string at p into out (room for size*size); returns the count. */
int gb_string_points(const GoBoard *b, int p, int *out);
/* Zobrist key of a stone of color at p. */
uint64_t gb_zobrist(int p, int color);
/* 1 if a (positional) hash appears among the positions before the current one. */
int gb_hash_seen(const GoBoard *b, uint64_t h);

/* 1 if p is an empty point whose neighbours are all color and whose diagonals
 * hold at most one enemy stone (none on the edge): a real eye for playouts. */
int gb_is_eye(const GoBoard *b, int p, int color);
/* Playout from the current position, until two passes or max_moves: each side
 * first answers the opponent's last move by capturing the string just played if
 * it is in atari, or by saving its own string that move put in atari; otherwise
 * it plays a uniformly random legal move that neither fills its own eye nor puts
 * two or more of its stones in atari (so seki stays seki).  Every move is an
 * undoable frame; returns the number of frames pushed, or -1 if out of memory. */
int gb_playout(GoBoard *b, int to_play, uint64_t *rng, int max_moves);
/* Area ownership per padded point: stone colour, or the colour that alone
 * borders an empty region, else 0. */
void gb_area_owner(GoBoard *b, int8_t *owner);

#endif
