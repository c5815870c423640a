/* Python wrapper of the board core: analysis.go._board.Board.
 *
 * Points are flat indices row * size + col; size * size is pass.
 * Colours are 1 (black) and -1 (white).  play() and legal() return status
 * codes rather than raising, so hot loops stay cheap; analysis.go.position
 * turns the codes into IllegalMoveError.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "board.h"
#include "ladder.h"
#include "planes.h"

typedef struct {
    PyObject_HEAD
    GoBoard b;
    int ready;
    LadderSearch *ladder; /* allocated on first use */
} BoardObject;

static PyTypeObject BoardType;

static inline int to_pad(const GoBoard *b, int i) { return (i / b->size + 1) * b->W + i % b->size + 1; }
static inline int from_pad(const GoBoard *b, int p) { return (p / b->W - 1) * b->size + p % b->W - 1; }

static int check_point(BoardObject *self, long point, int allow_pass) {
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Board was not initialised");
        return -1;
    }
    long area = (long)self->b.size * self->b.size;
    if (point >= 0 && (point < area || (allow_pass && point == area))) return 0;
    PyErr_Format(PyExc_ValueError, "point %ld is off a %dx%d board", point, self->b.size, self->b.size);
    return -1;
}

static int check_color(long color) {
    if (color == GB_BLACK || color == GB_WHITE) return 0;
    PyErr_Format(PyExc_ValueError, "color must be 1 (black) or -1 (white), not %ld", color);
    return -1;
}

static int Board_init(BoardObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"size", "superko", NULL};
    int size, superko = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "i|p", kwlist, &size, &superko)) return -1;
    if (size < 2 || size > GB_MAX_SIZE) {
        PyErr_Format(PyExc_ValueError, "board size %d is not between 2 and %d", size, GB_MAX_SIZE);
        return -1;
    }
    if (self->ready) gb_free(&self->b);
    self->ready = 0;
    if (gb_init(&self->b, size, superko) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->ready = 1;
    return 0;
}

static void Board_dealloc(BoardObject *self) {
    if (self->ready) gb_free(&self->b);
    PyMem_Free(self->ladder);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Board_play(BoardObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) return PyErr_Format(PyExc_TypeError, "play(point, color) takes 2 arguments");
    long point = PyLong_AsLong(args[0]), color = PyLong_AsLong(args[1]);
    if (PyErr_Occurred() || check_point(self, point, 1) < 0 || check_color(color) < 0) return NULL;
    int r;
    if (point == (long)self->b.size * self->b.size)
        r = gb_pass(&self->b, (int)color);
    else
        r = gb_play(&self->b, to_pad(&self->b, (int)point), (int)color);
    if (r == GB_ERR_NOMEM || (r == -1 && point == (long)self->b.size * self->b.size)) return PyErr_NoMemory();
    return PyLong_FromLong(r);
}

static PyObject *Board_legal(BoardObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) return PyErr_Format(PyExc_TypeError, "legal(point, color) takes 2 arguments");
    long point = PyLong_AsLong(args[0]), color = PyLong_AsLong(args[1]);
    if (PyErr_Occurred() || check_point(self, point, 1) < 0 || check_color(color) < 0) return NULL;
    if (point == (long)self->b.size * self->b.size) return PyLong_FromLong(0);
    int r = gb_legal(&self->b, to_pad(&self->b, (int)point), (int)color);
    if (r == GB_ERR_NOMEM) return PyErr_NoMemory();
    return PyLong_FromLong(r);
}

static PyObject *Board_legal_map(BoardObject *self, PyObject *arg) {
    long color = PyLong_AsLong(arg);
    if (PyErr_Occurred() || check_color(color) < 0) return NULL;
    int area = self->b.size * self->b.size;
    PyObject *out = PyBytes_FromStringAndSize(NULL, area);
    if (!out) return NULL;
    char *buf = PyBytes_AS_STRING(out);
    for (int i = 0; i < area; i++) {
        int r = gb_legal(&self->b, to_pad(&self->b, i), (int)color);
        if (r == GB_ERR_NOMEM) {
            Py_DECREF(out);
            return PyErr_NoMemory();
        }
        buf[i] = r == 0;
    }
    return out;
}

static PyObject *Board_undo(BoardObject *self, PyObject *unused) {
    if (gb_undo(&self->b) < 0) {
        PyErr_SetString(PyExc_IndexError, "nothing to undo");
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *Board_setup(BoardObject *self, PyObject *args) {
    PyObject *pts, *cols;
    if (!PyArg_ParseTuple(args, "OO", &pts, &cols)) return NULL;
    PyObject *pseq = PySequence_Fast(pts, "points must be a sequence");
    if (!pseq) return NULL;
    PyObject *cseq = PySequence_Fast(cols, "colors must be a sequence");
    if (!cseq) {
        Py_DECREF(pseq);
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(pseq);
    int *p = NULL, *c = NULL;
    PyObject *result = NULL;
    if (PySequence_Fast_GET_SIZE(cseq) != n) {
        PyErr_SetString(PyExc_ValueError, "points and colors differ in length");
        goto done;
    }
    p = PyMem_Malloc(sizeof(int) * (n + 1));
    c = PyMem_Malloc(sizeof(int) * (n + 1));
    if (!p || !c) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long point = PyLong_AsLong(PySequence_Fast_GET_ITEM(pseq, i));
        long color = PyLong_AsLong(PySequence_Fast_GET_ITEM(cseq, i));
        if (PyErr_Occurred() || check_point(self, point, 0) < 0) goto done;
        if (color != GB_EMPTY && check_color(color) < 0) goto done;
        p[i] = to_pad(&self->b, (int)point);
        c[i] = (int)color;
    }
    if (gb_setup(&self->b, (int)n, p, c) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(p);
    PyMem_Free(c);
    Py_DECREF(pseq);
    Py_DECREF(cseq);
    return result;
}

static int arg_point(BoardObject *self, PyObject *arg, long *point) {
    *point = PyLong_AsLong(arg);
    if (PyErr_Occurred()) return -1;
    return check_point(self, *point, 0);
}

static PyObject *Board_get(BoardObject *self, PyObject *arg) {
    long point;
    if (arg_point(self, arg, &point) < 0) return NULL;
    return PyLong_FromLong(GB_AT(&self->b, GB_COLOR, to_pad(&self->b, (int)point)));
}

static PyObject *Board_liberties(BoardObject *self, PyObject *arg) {
    long point;
    if (arg_point(self, arg, &point) < 0) return NULL;
    return PyLong_FromLong(gb_libs(&self->b, to_pad(&self->b, (int)point)));
}

static PyObject *points_to_list(BoardObject *self, const int *pts, int n) {
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(list, i, PyLong_FromLong(from_pad(&self->b, pts[i])));
    return list;
}

static PyObject *Board_liberty_points(BoardObject *self, PyObject *arg) {
    long point;
    int out[GB_MAX_P];
    if (arg_point(self, arg, &point) < 0) return NULL;
    int n = gb_liberty_points(&self->b, to_pad(&self->b, (int)point), out, GB_MAX_P);
    return points_to_list(self, out, n);
}

static PyObject *Board_string_points(BoardObject *self, PyObject *arg) {
    long point;
    int out[GB_MAX_P];
    if (arg_point(self, arg, &point) < 0) return NULL;
    int n = gb_string_points(&self->b, to_pad(&self->b, (int)point), out);
    return points_to_list(self, out, n);
}

/* One byte per point, row-major: the value of `arr`, or the capped liberty count. */
static PyObject *point_bytes(BoardObject *self, int liberties) {
    const GoBoard *b = &self->b;
    int area = b->size * b->size;
    PyObject *out = PyBytes_FromStringAndSize(NULL, area);
    if (!out) return NULL;
    char *buf = PyBytes_AS_STRING(out);
    for (int i = 0; i < area; i++) {
        int p = to_pad(b, i);
        if (liberties) {
            int n = gb_libs(b, p);
            buf[i] = (char)(n > 127 ? 127 : n);
        } else {
            buf[i] = (char)GB_AT(b, GB_COLOR, p);
        }
    }
    return out;
}

static PyObject *Board_liberties_after(BoardObject *self, PyObject *arg) {
    long color = PyLong_AsLong(arg);
    if (PyErr_Occurred() || check_color(color) < 0) return NULL;
    GoBoard *b = &self->b;
    int area = b->size * b->size;
    PyObject *out = PyBytes_FromStringAndSize(NULL, area);
    if (!out) return NULL;
    char *buf = PyBytes_AS_STRING(out);
    for (int i = 0; i < area; i++) {
        int p = to_pad(b, i), n = 0;
        if (GB_AT(b, GB_COLOR, p) == GB_EMPTY) {
            int r = gb_play(b, p, (int)color);
            if (r == GB_ERR_NOMEM) {
                Py_DECREF(out);
                return PyErr_NoMemory();
            }
            if (r >= 0) {
                n = gb_libs(b, p);
                gb_undo(b);
            }
        }
        buf[i] = (char)(n > 127 ? 127 : n);
    }
    return out;
}

static PyObject *Board_stones(BoardObject *self, PyObject *unused) { return point_bytes(self, 0); }
static PyObject *Board_liberty_counts(BoardObject *self, PyObject *unused) { return point_bytes(self, 1); }

static PyObject *Board_is_eye(BoardObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) return PyErr_Format(PyExc_TypeError, "is_eye(point, color) takes 2 arguments");
    long point = PyLong_AsLong(args[0]), color = PyLong_AsLong(args[1]);
    if (PyErr_Occurred() || check_point(self, point, 0) < 0 || check_color(color) < 0) return NULL;
    return PyBool_FromLong(gb_is_eye(&self->b, to_pad(&self->b, (int)point), (int)color));
}

static PyObject *Board_area_owner(BoardObject *self, PyObject *unused) {
    int8_t owner[GB_MAX_P];
    gb_area_owner(&self->b, owner);
    int area = self->b.size * self->b.size;
    PyObject *out = PyBytes_FromStringAndSize(NULL, area);
    if (!out) return NULL;
    char *buf = PyBytes_AS_STRING(out);
    for (int i = 0; i < area; i++) buf[i] = owner[to_pad(&self->b, i)];
    return out;
}

static PyObject *Board_ownership(BoardObject *self, PyObject *args) {
    int to_play, playouts;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "iiK", &to_play, &playouts, &seed)) return NULL;
    if (check_color(to_play) < 0) return NULL;
    if (playouts < 1) return PyErr_Format(PyExc_ValueError, "playouts must be positive, not %d", playouts);
    GoBoard *b = &self->b;
    int area = b->size * b->size;
    uint64_t rng = seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
    int8_t owner[GB_MAX_P];
    long *sum = PyMem_Calloc(area, sizeof(long));
    if (!sum) return PyErr_NoMemory();
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (int k = 0; k < playouts && !failed; k++) {
        int frames = gb_playout(b, to_play, &rng, 3 * area + 50);
        if (frames < 0) {
            failed = 1;
            break;
        }
        gb_area_owner(b, owner);
        for (int i = 0; i < area; i++) sum[i] += owner[to_pad(b, i)];
        for (int i = 0; i < frames; i++) gb_undo(b);
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyMem_Free(sum);
        return PyErr_NoMemory();
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, area * sizeof(double));
    if (out) {
        double *buf = (double *)PyBytes_AS_STRING(out);
        for (int i = 0; i < area; i++) buf[i] = (double)sum[i] / playouts;
    }
    PyMem_Free(sum);
    return out;
}

static int parse_ladder_limits(BoardObject *self, int max_depth, int max_nodes) {
    if (max_depth < 0 || max_depth > LADDER_MAX_DEPTH_CAP || max_nodes < 1) {
        PyErr_Format(PyExc_ValueError, "max_depth must be 0..%d and max_nodes positive", LADDER_MAX_DEPTH_CAP);
        return -1;
    }
    if (!self->ladder && !(self->ladder = PyMem_Malloc(sizeof(LadderSearch)))) {
        PyErr_NoMemory();
        return -1;
    }
    ladder_init(self->ladder, max_depth, max_nodes);
    return 0;
}

/* ladder_capture / ladder_captured: run one query on the string at point. */
static PyObject *ladder_query(BoardObject *self, PyObject *args, PyObject *kwds, int attacker_first) {
    static char *kwlist[] = {"point", "max_depth", "max_nodes", NULL};
    long point;
    int max_depth = 100, max_nodes = 1000;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "l|ii", kwlist, &point, &max_depth, &max_nodes)) return NULL;
    if (check_point(self, point, 0) < 0) return NULL;
    if (parse_ladder_limits(self, max_depth, max_nodes) < 0) return NULL;
    LadderSearch *s = self->ladder;
    int target = to_pad(&self->b, (int)point);
    int captured = attacker_first ? ladder_capture(&self->b, s, target) : ladder_captured(&self->b, s, target);
    PyObject *pv = PyList_New(s->pvlen[0]);
    if (!pv) return NULL;
    for (int i = 0; i < s->pvlen[0]; i++) PyList_SET_ITEM(pv, i, PyLong_FromLong(from_pad(&self->b, s->pv[0][i])));
    return Py_BuildValue("(NNiN)", PyBool_FromLong(captured), pv, s->nodes, PyBool_FromLong(s->budget_hit));
}

static PyObject *Board_ladder_capture(BoardObject *self, PyObject *args, PyObject *kwds) {
    return ladder_query(self, args, kwds, 1);
}

static PyObject *Board_ladder_captured(BoardObject *self, PyObject *args, PyObject *kwds) {
    return ladder_query(self, args, kwds, 0);
}

/* Two planes of one byte per point, row-major, from two padded arrays. */
static PyObject *two_planes(BoardObject *self, const uint8_t *a, const uint8_t *b) {
    int area = self->b.size * self->b.size;
    PyObject *out = PyBytes_FromStringAndSize(NULL, 2 * area);
    if (!out) return NULL;
    char *buf = PyBytes_AS_STRING(out);
    for (int i = 0; i < area; i++) {
        int p = to_pad(&self->b, i);
        buf[i] = (char)a[p];
        buf[area + i] = (char)b[p];
    }
    return out;
}

static PyObject *Board_ladder_string_maps(BoardObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"max_depth", "max_nodes", NULL};
    int max_depth = 100, max_nodes = 1000;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|ii", kwlist, &max_depth, &max_nodes)) return NULL;
    if (!self->ready) return PyErr_Format(PyExc_RuntimeError, "Board was not initialised");
    if (parse_ladder_limits(self, max_depth, max_nodes) < 0) return NULL;
    self->ladder->want_pv = 0;
    uint8_t captured[GB_MAX_P], escapes[GB_MAX_P];
    ladder_string_maps(&self->b, self->ladder, captured, escapes);
    return two_planes(self, captured, escapes);
}

static PyObject *Board_ladder_point_maps(BoardObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"color", "max_depth", "max_nodes", NULL};
    int color, max_depth = 100, max_nodes = 1000;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "i|ii", kwlist, &color, &max_depth, &max_nodes)) return NULL;
    if (!self->ready) return PyErr_Format(PyExc_RuntimeError, "Board was not initialised");
    if (check_color(color) < 0 || parse_ladder_limits(self, max_depth, max_nodes) < 0) return NULL;
    self->ladder->want_pv = 0;
    uint8_t captured[GB_MAX_P], threatens[GB_MAX_P];
    ladder_point_maps(&self->b, self->ladder, color, captured, threatens);
    if (PyErr_Occurred()) return NULL;
    return two_planes(self, captured, threatens);
}

static int plane_count(const char *kind, int top) {
    if (!strcmp(kind, "stones")) return 3;
    if (!strcmp(kind, "liberties_both")) return 2 * top;
    if (!strcmp(kind, "liberties_any") || !strcmp(kind, "liberties_after") || !strcmp(kind, "last_moves"))
        return top;
    if (!strcmp(kind, "legal") || !strcmp(kind, "ko_point") || !strcmp(kind, "ko_exists")) return 1;
    if (!strcmp(kind, "history_decay") || !strcmp(kind, "ladder_strings") || !strcmp(kind, "territory")) return 2;
    if (!strcmp(kind, "ladder_moves")) return 4;
    return -1;
}

static PyObject *Board_fill_planes(BoardObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"kind", "out", "color", "top", "max_depth", "max_nodes", NULL};
    const char *kind;
    PyObject *target;
    int color, top = 0, max_depth = 100, max_nodes = 1000;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sOi|iii", kwlist, &kind, &target, &color, &top, &max_depth,
                                     &max_nodes))
        return NULL;
    if (!self->ready) return PyErr_Format(PyExc_RuntimeError, "Board was not initialised");
    if (check_color(color) < 0) return NULL;
    int planes = plane_count(kind, top);
    if (planes < 1) return PyErr_Format(PyExc_ValueError, "unknown plane kind %s (or top %d)", kind, top);
    if (!strcmp(kind, "ladder_strings") || !strcmp(kind, "ladder_moves")) {
        if (parse_ladder_limits(self, max_depth, max_nodes) < 0) return NULL;
        self->ladder->want_pv = 0;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(target, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    GoBoard *b = &self->b;
    Py_ssize_t want = (Py_ssize_t)planes * b->size * b->size * (Py_ssize_t)sizeof(float);
    if (strcmp(view.format, "f") != 0 || view.len != want) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "%s needs a float32 buffer of %d planes of %dx%d", kind, planes,
                            b->size, b->size);
    }
    float *out = view.buf;
    /* The kernels touch only this board and the buffer: other threads may run
     * meanwhile, on other boards (callers must not share a board between threads). */
    Py_BEGIN_ALLOW_THREADS
    if (!strcmp(kind, "stones")) pl_stones(b, color, out);
    else if (!strcmp(kind, "liberties_both")) pl_liberties(b, color, top, 1, out);
    else if (!strcmp(kind, "liberties_any")) pl_liberties(b, color, top, 0, out);
    else if (!strcmp(kind, "liberties_after")) pl_liberties_after(b, color, top, out);
    else if (!strcmp(kind, "last_moves")) pl_last_moves(b, top, out);
    else if (!strcmp(kind, "legal")) pl_legal(b, color, out);
    else if (!strcmp(kind, "ko_point")) pl_ko_point(b, color, out);
    else if (!strcmp(kind, "ko_exists")) pl_ko_exists(b, color, out);
    else if (!strcmp(kind, "history_decay")) pl_history_decay(b, color, out);
    else if (!strcmp(kind, "ladder_strings")) pl_ladder_strings(b, self->ladder, out);
    else if (!strcmp(kind, "ladder_moves")) pl_ladder_moves(b, self->ladder, color, out);
    else pl_territory(b, color, out);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static PyObject *Board_prisoners(BoardObject *self, PyObject *arg) {
    long color = PyLong_AsLong(arg);
    if (PyErr_Occurred() || check_color(color) < 0) return NULL;
    return PyLong_FromLong(color == GB_BLACK ? self->b.prisoners_black : self->b.prisoners_white);
}

static PyObject *Board_copy(BoardObject *self, PyObject *unused) {
    BoardObject *other = (BoardObject *)BoardType.tp_alloc(&BoardType, 0);
    if (!other) return NULL;
    if (gb_copy(&other->b, &self->b) < 0) {
        Py_DECREF(other);
        return PyErr_NoMemory();
    }
    other->ready = 1;
    return (PyObject *)other;
}

static PyObject *Board_get_size(BoardObject *self, void *closure) { return PyLong_FromLong(self->b.size); }
static PyObject *Board_get_hash(BoardObject *self, void *closure) {
    return PyLong_FromUnsignedLongLong(self->b.hash);
}
static PyObject *Board_get_ko(BoardObject *self, void *closure) {
    return PyLong_FromLong(self->b.ko ? from_pad(&self->b, self->b.ko) : -1);
}
static PyObject *Board_get_ko_color(BoardObject *self, void *closure) { return PyLong_FromLong(self->b.ko_color); }
static PyObject *Board_get_depth(BoardObject *self, void *closure) { return PyLong_FromLong(self->b.flen); }
static PyObject *Board_get_superko(BoardObject *self, void *closure) { return PyBool_FromLong(self->b.superko); }
static int Board_set_superko(BoardObject *self, PyObject *value, void *closure) {
    int v = value ? PyObject_IsTrue(value) : -1;
    if (v < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "cannot delete superko");
        return -1;
    }
    self->b.superko = v;
    return 0;
}

static PyMethodDef Board_methods[] = {
    {"play", (PyCFunction)(void (*)(void))Board_play, METH_FASTCALL,
     "play(point, color) -> int: stones captured (>= 0), or -1 occupied, -2 suicide, -3 ko, -4 superko."},
    {"legal", (PyCFunction)(void (*)(void))Board_legal, METH_FASTCALL,
     "legal(point, color) -> int: 0 if legal, otherwise the code play() would return."},
    {"legal_map", (PyCFunction)Board_legal_map, METH_O, "legal_map(color) -> bytes: 1 per legal point."},
    {"undo", (PyCFunction)Board_undo, METH_NOARGS, "Take back the last move, pass or setup; IndexError if none."},
    {"setup", (PyCFunction)Board_setup, METH_VARARGS,
     "setup(points, colors): place (or, with colour 0, remove) stones as one undoable step."},
    {"get", (PyCFunction)Board_get, METH_O, "get(point) -> colour at point (1, -1 or 0)."},
    {"liberties", (PyCFunction)Board_liberties, METH_O, "liberties(point) -> liberties of its string (0 if empty)."},
    {"liberty_points", (PyCFunction)Board_liberty_points, METH_O, "liberty_points(point) -> list of liberties."},
    {"string_points", (PyCFunction)Board_string_points, METH_O, "string_points(point) -> list of the string's stones."},
    {"stones", (PyCFunction)Board_stones, METH_NOARGS, "stones() -> bytes: int8 colour per point, row-major."},
    {"liberty_counts", (PyCFunction)Board_liberty_counts, METH_NOARGS,
     "liberty_counts() -> bytes: liberties of the string on each point (0 if empty), capped at 127."},
    {"is_eye", (PyCFunction)(void (*)(void))Board_is_eye, METH_FASTCALL,
     "is_eye(point, color) -> True if point is an empty real eye of color (neighbours all color, "
     "diagonals at most one enemy stone, none on the edge)."},
    {"area_owner", (PyCFunction)Board_area_owner, METH_NOARGS,
     "area_owner() -> bytes: int8 per point, the stone's colour or the only colour bordering the empty region."},
    {"ownership", (PyCFunction)Board_ownership, METH_VARARGS,
     "ownership(to_play, playouts, seed) -> bytes: float64 per point, mean area owner (+1 black) over "
     "playouts (capture and save replies, else random moves that fill no eye and make no "
     "self-atari of 2+ stones); the board is restored."},
    {"ladder_capture", (PyCFunction)(void (*)(void))Board_ladder_capture, METH_VARARGS | METH_KEYWORDS,
     "ladder_capture(point, max_depth=100, max_nodes=1000) -> (captured, pv, nodes, budget_hit): "
     "the attacker moves first against the string at point (Cazenave's captureLadder)."},
    {"ladder_captured", (PyCFunction)(void (*)(void))Board_ladder_captured, METH_VARARGS | METH_KEYWORDS,
     "ladder_captured(point, max_depth=100, max_nodes=1000) -> (captured, pv, nodes, budget_hit): "
     "the string's owner moves first (Cazenave's isCapturedLadder); when it escapes, pv[0] is the saving move."},
    {"ladder_string_maps", (PyCFunction)(void (*)(void))Board_ladder_string_maps, METH_VARARGS | METH_KEYWORDS,
     "ladder_string_maps(max_depth=100, max_nodes=1000) -> bytes: two planes, 1 on the stones of strings "
     "with two liberties captured in a ladder (attacker first), then of strings in atari that escape "
     "(owner first)."},
    {"ladder_point_maps", (PyCFunction)(void (*)(void))Board_ladder_point_maps, METH_VARARGS | METH_KEYWORDS,
     "ladder_point_maps(color, max_depth=100, max_nodes=1000) -> bytes: two planes over empty points, "
     "1 where a stone of color would be captured in a ladder, then where it ataris an enemy string "
     "that cannot escape."},
    {"liberties_after", (PyCFunction)Board_liberties_after, METH_O,
     "liberties_after(color) -> bytes: per point, the liberties of color's string if it played there "
     "(0 where the move is illegal or the point occupied), capped at 127."},
    {"fill_planes", (PyCFunction)(void (*)(void))Board_fill_planes, METH_VARARGS | METH_KEYWORDS,
     "fill_planes(kind, out, color, top=0, max_depth=100, max_nodes=1000): write feature planes seen from "
     "color into the float32 C-contiguous buffer out (kinds: stones, liberties_both, liberties_any, "
     "liberties_after, last_moves, legal, ko_point, ko_exists, history_decay, ladder_strings, "
     "ladder_moves, territory; see planes.h)."},
    {"prisoners", (PyCFunction)Board_prisoners, METH_O, "prisoners(color) -> stones captured by color."},
    {"copy", (PyCFunction)Board_copy, METH_NOARGS, "copy() -> an independent Board with the same history."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Board_getset[] = {
    {"size", (getter)Board_get_size, NULL, "board size", NULL},
    {"hash", (getter)Board_get_hash, NULL, "64-bit Zobrist hash of the stones", NULL},
    {"ko", (getter)Board_get_ko, NULL, "the point forbidden by simple ko, or -1", NULL},
    {"ko_color", (getter)Board_get_ko_color, NULL, "the colour the ko point is forbidden to, or 0", NULL},
    {"depth", (getter)Board_get_depth, NULL, "number of undoable steps", NULL},
    {"superko", (getter)Board_get_superko, (setter)Board_set_superko, "positional superko enforced", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject BoardType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "analysis.go._board.Board",
    .tp_basicsize = sizeof(BoardObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Board(size, superko=False): a Go board with incremental strings and make/undo.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Board_init,
    .tp_dealloc = (destructor)Board_dealloc,
    .tp_methods = Board_methods,
    .tp_getset = Board_getset,
};

static struct PyModuleDef board_module = {
    PyModuleDef_HEAD_INIT, "_board", "Compiled Go board core.", -1, NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__board(void) {
    if (PyType_Ready(&BoardType) < 0) return NULL;
    PyObject *m = PyModule_Create(&board_module);
    if (!m) return NULL;
    Py_INCREF(&BoardType);
    if (PyModule_AddObject(m, "Board", (PyObject *)&BoardType) < 0) {
        Py_DECREF(&BoardType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "MAX_SIZE", GB_MAX_SIZE);
    PyModule_AddIntConstant(m, "OCCUPIED", GB_ILLEGAL_OCCUPIED);
    PyModule_AddIntConstant(m, "SUICIDE", GB_ILLEGAL_SUICIDE);
    PyModule_AddIntConstant(m, "KO", GB_ILLEGAL_KO);
    PyModule_AddIntConstant(m, "SUPERKO", GB_ILLEGAL_SUPERKO);
    return m;
}
