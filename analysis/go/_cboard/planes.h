/* Feature-plane kernels: each writes float planes of size*size values, row-major,
 * into out, seen from `us` (the player to move).  analysis/features/planes.py
 * names and documents every plane; these only fill them. */
#ifndef GO_PLANES_H
#define GO_PLANES_H

#include "board.h"
#include "ladder.h"

/* 3 planes: our stones, their stones, empty. */
void pl_stones(const GoBoard *b, int us, float *out);
/* top planes (1 .. top-1, >= top) of string liberties: for our then their
 * strings when both, else for any string. */
void pl_liberties(const GoBoard *b, int us, int top, int both, float *out);
/* top planes of the liberties a stone of color would have after playing each point. */
void pl_liberties_after(GoBoard *b, int color, int top, float *out);
/* 1 plane: legal moves of us. */
void pl_legal(GoBoard *b, int us, float *out);
/* 1 plane: the ko point forbidden to us. */
void pl_ko_point(const GoBoard *b, int us, float *out);
/* 1 plane: all ones when a ko point is forbidden to us. */
void pl_ko_exists(const GoBoard *b, int us, float *out);
/* count planes: plane k marks the move played k+1 moves ago (passes count, setups do not). */
void pl_last_moves(const GoBoard *b, int count, float *out);
/* 2 planes: exp(-0.1 t) on our, then their, stones played t moves ago. */
void pl_history_decay(const GoBoard *b, int us, float *out);
/* 2 planes: ladder_string_maps as floats. */
void pl_ladder_strings(GoBoard *b, LadderSearch *s, float *out);
/* 4 planes: our move laddered, their move laddered, our ladder capture, their ladder capture. */
void pl_ladder_moves(GoBoard *b, LadderSearch *s, int us, float *out);
/* 2 planes: points strictly nearer (Manhattan) to our, then their, stones. */
void pl_territory(GoBoard *b, int us, float *out);

#endif
