/* The native codec: one generic engine that runs programs compiled from the schema tables.
 *
 * Nothing in this file knows a message. codec/wire/native.py compiles every (message, version) of
 * schemas/ into a tree of struct programs -- the fields in wire order with their kind, length and count
 * encodings and nullability, the tagged-field section, how the decoded values become the output (a wire
 * dataclass, a tuple, a dict of Kafka's JSON, or a model object) and where the encoder finds each value
 * -- and this engine decodes bytes and encodes values by walking that tree.
 *
 * It never reports an error. On anything unusual (a cut input, a count larger than the bytes that remain,
 * a null where none is allowed, invalid UTF-8, a known tag out of order, a value of an unexpected type or
 * out of range, ...) a call returns None and the caller takes the pure-Python reference path, which
 * decodes or encodes the same input or raises the error with its exact offset and field path. Every
 * length and count is checked against the bytes that remain before anything is allocated, so memory
 * stays within a small multiple of the input, as on the reference path.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#define MAXSLOTS 64

/* value kinds */
enum { K_INT8 = 1, K_INT16, K_INT32, K_INT64, K_UINT16, K_BOOL, K_UUID, K_STRING, K_BYTES, K_JAVAUTF,
       K_JAVACHARS, K_STRUCT };
/* field flags */
#define F_ARRAY 0x01        /* an array of the kind */
#define F_COMPACT 0x02      /* compact (uvarint) lengths and counts */
#define F_NULLABLE 0x04     /* a null value (string, bytes; struct: a marker) */
#define F_ARR_NULLABLE 0x08 /* a null array */
#define F_MARKER_UV 0x10    /* nullable struct in a tagged field: a uvarint marker */
#define F_UNIQUE 0x20       /* a dict-building array: a repeated key is a miss */
/* what a dict-building array (A_DICT, A_COUNTS) gives instead of its dict */
#define F_TO_VALUES 0x40    /* the list of its values, first seen first */
#define F_TO_ITEMS 0x80     /* the list of its (key, value) items; None when it is empty */
#define F_TO_ROWS 0x100     /* the list of its entries as rows: each key (a tuple) with its value appended */
#define F_TO_LEN 0x200      /* the number of its (distinct) keys */
#define F_JAVA_UTF8 0x400   /* a string read as Java's new String(bytes, UTF_8) reads it (U+FFFD for malformed) */
#define F_TO_ANY (F_TO_VALUES | F_TO_ITEMS | F_TO_ROWS | F_TO_LEN)
/* what an array becomes: a tuple, a list, a dict its (pair) elements fill, the enclosing array's dict, the
   number of its elements, or a dict of each distinct element's count (first seen first) */
enum { A_TUPLE = 0, A_LIST, A_DICT, A_INTO, A_COUNT, A_COUNTS };
/* decode conversions of a leaf */
enum { C_NONE = 0, C_B64, C_HEX, C_KUUID, C_SUUID, C_UTF8, C_UTF8_OR_NONE };
/* what a struct becomes */
enum { B_OBJECT = 1, B_TUPLE, B_DICT, B_PAIR, B_NONE, B_CHECK };
/* where a built value comes from */
enum { S_SLOT = 1, S_CONST, S_NEWDICT, S_CALL, S_BUILD, S_PARENT, S_LOOKUP, S_EMPTY_NONE, S_UNKNOWN_JSON, S_KEYS };
/* what the encoder is given for a struct */
enum { E_OBJECT = 1, E_TUPLE, E_ITEM };
/* where the encoder finds a field's value */
enum { G_OFF = 1, G_IDX, G_KEY, G_KEYOFF, G_VALUE, G_CONST, G_EXTRA, G_LOOKUP };
/* encode conversions */
enum { EC_NONE = 0, EC_UTF8, EC_UTF8_NONE_EMPTY };

/* --- configuration (codec.wire.native.configure) ------------------------------------------------- */

static PyTypeObject *UUID_T = NULL;
static Py_ssize_t UUID_INT_OFF = -1, UUID_SAFE_OFF = -1;
static PyObject *UUID_SAFE_UNKNOWN = NULL;

/* --- programs ------------------------------------------------------------------------------------- */

typedef struct Builder Builder;
typedef struct StructProg StructProg;

typedef struct {
    int kind, i, j;
    Py_ssize_t off;  /* B_OBJECT: where the value goes */
    PyObject *key;   /* B_DICT: the key */
    PyObject *obj;   /* S_CONST: the value; S_CALL: the factory; S_UNKNOWN_JSON: the key */
    Builder *build;  /* S_BUILD; S_KEYS: n sources, each an array's slot (i) and the value its keys get (obj) */
} Src;

struct Builder {
    int kind, n;
    PyTypeObject *type;
    Src *srcs;
    int nhash;             /* B_PAIR: the key's hash is the tuple hash of these slots of the key object */
    Py_ssize_t *hash_offs;
};

typedef struct {
    int kind, flags, amode, slot, conv;
    StructProg *sub;
    int gsrc, gidx, econv, ain, tag;
    Py_ssize_t goff;
    PyObject *gconst;
    PyObject *ddefault;    /* tagged: the decoded value when the tag is absent */
    int dcall;             /* ... or a factory of it */
    PyObject *tdefault;    /* tagged: a value equal to this is not written */
} FieldOp;

struct StructProg {
    PyObject_HEAD
    PyObject *spec;
    int nslots, nfields, flexible, unknown_slot, ntagged;
    FieldOp *fields, *tagged;
    Builder *out;
    int ein, en, nabsent, unknown_empty;
    PyTypeObject *etype;
    Py_ssize_t *absent_off, unknown_off;
    PyObject **absent_def;
    void **arena;
    int narena, carena;
    Py_ssize_t fixed;    /* > 0: every field a fixed-width integer (or bool), together this many bytes */
    Py_ssize_t minsize;  /* the fewest bytes one value of the struct takes on the wire */
    Py_ssize_t into_min; /* > 0: an array of it fills the enclosing dict (A_INTO) with elements of at least
                            this many bytes each */
};

static PyTypeObject StructProgType;

static void *arena_alloc(StructProg *sp, size_t size) {
    if (size == 0) size = 1;
    if (sp->narena == sp->carena) {
        int cap = sp->carena ? 2 * sp->carena : 8;
        void **a = PyMem_Realloc(sp->arena, cap * sizeof(void *));
        if (!a) { PyErr_NoMemory(); return NULL; }
        sp->arena = a;
        sp->carena = cap;
    }
    void *p = PyMem_Calloc(1, size);
    if (!p) { PyErr_NoMemory(); return NULL; }
    sp->arena[sp->narena++] = p;
    return p;
}

static void StructProg_dealloc(StructProg *sp) {
    for (int i = 0; i < sp->narena; i++) PyMem_Free(sp->arena[i]);
    PyMem_Free(sp->arena);
    Py_XDECREF(sp->spec);
    Py_TYPE(sp)->tp_free((PyObject *)sp);
}

/* --- reading the spec ----------------------------------------------------------------------------- */

static int spec_int(PyObject *t, Py_ssize_t i, int *out) {
    if (!PyTuple_Check(t) || i >= PyTuple_GET_SIZE(t)) { PyErr_SetString(PyExc_ValueError, "bad spec"); return -1; }
    long v = PyLong_AsLong(PyTuple_GET_ITEM(t, i));
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = (int)v;
    return 0;
}

static int spec_ssize(PyObject *t, Py_ssize_t i, Py_ssize_t *out) {
    if (!PyTuple_Check(t) || i >= PyTuple_GET_SIZE(t)) { PyErr_SetString(PyExc_ValueError, "bad spec"); return -1; }
    Py_ssize_t v = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, i));
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
}

static PyObject *spec_obj(PyObject *t, Py_ssize_t i) {
    if (!PyTuple_Check(t) || i >= PyTuple_GET_SIZE(t)) { PyErr_SetString(PyExc_ValueError, "bad spec"); return NULL; }
    return PyTuple_GET_ITEM(t, i);
}

static Builder *parse_builder(StructProg *sp, PyObject *t);

static int parse_src(StructProg *sp, PyObject *t, Src *s) {
    if (spec_int(t, 0, &s->kind) < 0) return -1;
    switch (s->kind) {
    case S_SLOT: case S_PARENT: case S_EMPTY_NONE:
        if (spec_int(t, 1, &s->i) < 0) return -1;
        if (s->i < 0 || s->i >= MAXSLOTS) { PyErr_SetString(PyExc_ValueError, "slot out of range"); return -1; }
        return 0;
    case S_UNKNOWN_JSON:
        if (spec_int(t, 1, &s->i) < 0 || spec_int(t, 2, &s->j) < 0) return -1;
        return 0;
    case S_CONST: case S_CALL:
        s->obj = spec_obj(t, 1);
        return s->obj ? 0 : -1;
    case S_NEWDICT:
        return 0;
    case S_BUILD:
        s->build = parse_builder(sp, spec_obj(t, 1));
        return s->build ? 0 : -1;
    case S_LOOKUP:
        if (spec_int(t, 1, &s->i) < 0 || spec_int(t, 2, &s->j) < 0) return -1;
        return 0;
    case S_KEYS: {
        PyObject *items = spec_obj(t, 1);
        if (!items || !PyTuple_Check(items)) { PyErr_SetString(PyExc_ValueError, "keys items"); return -1; }
        Builder *b = arena_alloc(sp, sizeof(Builder));
        if (!b) return -1;
        b->n = (int)PyTuple_GET_SIZE(items);
        b->srcs = arena_alloc(sp, b->n * sizeof(Src));
        if (!b->srcs) return -1;
        for (int k = 0; k < b->n; k++) {
            PyObject *it = PyTuple_GET_ITEM(items, k);
            if (spec_int(it, 0, &b->srcs[k].i) < 0) return -1;
            if (b->srcs[k].i < 0 || b->srcs[k].i >= MAXSLOTS) { PyErr_SetString(PyExc_ValueError, "slot out of range"); return -1; }
            b->srcs[k].obj = spec_obj(it, 1);
            if (!b->srcs[k].obj) return -1;
        }
        s->build = b;
        return 0;
    }
    }
    PyErr_SetString(PyExc_ValueError, "unknown source kind");
    return -1;
}

static Builder *parse_builder(StructProg *sp, PyObject *t) {
    if (!t) return NULL;
    Builder *b = arena_alloc(sp, sizeof(Builder));
    if (!b || spec_int(t, 0, &b->kind) < 0) return NULL;
    PyObject *items;
    switch (b->kind) {
    case B_NONE:
        return b;
    case B_PAIR: {
        b->n = 2;
        b->srcs = arena_alloc(sp, 2 * sizeof(Src));
        if (!b->srcs || parse_src(sp, spec_obj(t, 1), &b->srcs[0]) < 0 || parse_src(sp, spec_obj(t, 2), &b->srcs[1]) < 0)
            return NULL;
        PyObject *h = spec_obj(t, 3);
        if (!h) return NULL;
        if (h != Py_None) {
            if (!PyTuple_Check(h)) { PyErr_SetString(PyExc_ValueError, "hash offsets"); return NULL; }
            b->nhash = (int)PyTuple_GET_SIZE(h);
            b->hash_offs = arena_alloc(sp, b->nhash * sizeof(Py_ssize_t));
            if (!b->hash_offs) return NULL;
            for (int i = 0; i < b->nhash; i++)
                if (spec_ssize(h, i, &b->hash_offs[i]) < 0) return NULL;
        }
        return b;
    }
    case B_OBJECT:
        b->type = (PyTypeObject *)spec_obj(t, 1);
        if (!b->type || !PyType_Check((PyObject *)b->type)) { PyErr_SetString(PyExc_ValueError, "not a type"); return NULL; }
        items = spec_obj(t, 2);
        break;
    case B_TUPLE: case B_DICT: case B_CHECK:
        items = spec_obj(t, 1);
        break;
    default:
        PyErr_SetString(PyExc_ValueError, "unknown builder kind");
        return NULL;
    }
    if (!items || !PyTuple_Check(items)) { PyErr_SetString(PyExc_ValueError, "builder items"); return NULL; }
    b->n = (int)PyTuple_GET_SIZE(items);
    b->srcs = arena_alloc(sp, b->n * sizeof(Src));
    if (!b->srcs) return NULL;
    for (int i = 0; i < b->n; i++) {
        PyObject *it = PyTuple_GET_ITEM(items, i);
        if (b->kind == B_TUPLE || b->kind == B_CHECK) {
            if (parse_src(sp, it, &b->srcs[i]) < 0) return NULL;
        } else if (b->kind == B_OBJECT) {
            if (spec_ssize(it, 0, &b->srcs[i].off) < 0 || parse_src(sp, spec_obj(it, 1), &b->srcs[i]) < 0) return NULL;
        } else {
            b->srcs[i].key = spec_obj(it, 0);
            if (!b->srcs[i].key || parse_src(sp, spec_obj(it, 1), &b->srcs[i]) < 0) return NULL;
        }
    }
    return b;
}

/* (kind, flags, amode, slot, conv, sub, gsrc, garg, econv, ain, tag, ddefault, dcall, tdefault) */
static int parse_field(StructProg *sp, PyObject *t, FieldOp *f) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 14) { PyErr_SetString(PyExc_ValueError, "field spec"); return -1; }
    if (spec_int(t, 0, &f->kind) < 0 || spec_int(t, 1, &f->flags) < 0 || spec_int(t, 2, &f->amode) < 0 ||
        spec_int(t, 3, &f->slot) < 0 || spec_int(t, 4, &f->conv) < 0 || spec_int(t, 6, &f->gsrc) < 0 ||
        spec_int(t, 8, &f->econv) < 0 || spec_int(t, 9, &f->ain) < 0 || spec_int(t, 10, &f->tag) < 0 ||
        spec_int(t, 12, &f->dcall) < 0)
        return -1;
    if (f->slot < 0 || f->slot >= MAXSLOTS) { PyErr_SetString(PyExc_ValueError, "slot out of range"); return -1; }
    PyObject *sub = PyTuple_GET_ITEM(t, 5);
    if (f->kind == K_STRUCT) {
        if (Py_TYPE(sub) != &StructProgType) { PyErr_SetString(PyExc_ValueError, "struct field without a program"); return -1; }
        f->sub = (StructProg *)sub;
    }
    PyObject *garg = PyTuple_GET_ITEM(t, 7);
    switch (f->gsrc) {
    case G_OFF: case G_KEYOFF:
        f->goff = PyLong_AsSsize_t(garg);
        if (f->goff == -1 && PyErr_Occurred()) return -1;
        break;
    case G_IDX: case G_EXTRA:
        f->gidx = (int)PyLong_AsLong(garg);
        if (f->gidx == -1 && PyErr_Occurred()) return -1;
        break;
    case G_CONST:
        f->gconst = garg;
        break;
    }
    if (f->gsrc == G_LOOKUP) {  /* garg = (offset of the key attribute, extra index of the dict) */
        if (!PyTuple_Check(garg) || spec_ssize(garg, 0, &f->goff) < 0 || spec_int(garg, 1, &f->gidx) < 0) return -1;
    }
    f->ddefault = PyTuple_GET_ITEM(t, 11);
    f->tdefault = PyTuple_GET_ITEM(t, 13);
    return 0;
}

/* the wire width of a fixed-width integer kind, else 0 */
static Py_ssize_t fixed_width(int kind) {
    switch (kind) {
    case K_INT8: case K_BOOL: return 1;
    case K_INT16: case K_UINT16: return 2;
    case K_INT32: return 4;
    case K_INT64: return 8;
    }
    return 0;
}

/* what the decoder may know of a struct before reading it: whether all of its fields are fixed-width integers
   (one bounds check for them all, no per-field dispatch), the fewest bytes a value takes, and the fewest an
   element of an array of it that fills the enclosing dict takes (that dict is sized for the bytes that remain) */
static void struct_sizes(StructProg *sp) {
    Py_ssize_t fixed = 0, min = sp->flexible ? 1 : 0;
    int all_fixed = sp->nfields > 0;
    for (int i = 0; i < sp->nfields; i++) {
        FieldOp *f = &sp->fields[i];
        Py_ssize_t w = f->flags & F_ARRAY ? 0 : fixed_width(f->kind);
        if (w == 0) all_fixed = 0;
        fixed += w;
        if (f->flags & F_ARRAY) {
            min += f->flags & F_COMPACT ? 1 : 4;
            if (f->amode == A_INTO && f->kind == K_STRUCT) sp->into_min = f->sub->minsize > 0 ? f->sub->minsize : 1;
        } else if (w) {
            min += w;
        } else {
            switch (f->kind) {
            case K_UUID: min += 16; break;
            case K_STRING: min += f->flags & F_COMPACT ? 1 : 2; break;
            case K_BYTES: min += f->flags & F_COMPACT ? 1 : 4; break;
            case K_JAVAUTF: min += 2; break;
            case K_JAVACHARS: min += 4; break;
            case K_STRUCT: min += f->flags & F_NULLABLE ? 1 : f->sub->minsize; break;
            }
        }
    }
    sp->fixed = all_fixed ? fixed : 0;
    sp->minsize = min;
}

/* (nslots, fields, flexible, unknown_slot, tagged, out, enc) */
static PyObject *native_struct(PyObject *self, PyObject *spec) {
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 7) { PyErr_SetString(PyExc_ValueError, "struct spec"); return NULL; }
    StructProg *sp = PyObject_New(StructProg, &StructProgType);
    if (!sp) return NULL;
    memset(((char *)sp) + sizeof(PyObject), 0, sizeof(StructProg) - sizeof(PyObject));
    Py_INCREF(spec);
    sp->spec = spec;
    sp->unknown_off = -1;
    PyObject *fields, *tagged, *enc;
    if (spec_int(spec, 0, &sp->nslots) < 0 || spec_int(spec, 2, &sp->flexible) < 0 || spec_int(spec, 3, &sp->unknown_slot) < 0)
        goto fail;
    if (sp->nslots > MAXSLOTS) { PyErr_SetString(PyExc_ValueError, "too many slots"); goto fail; }
    fields = PyTuple_GET_ITEM(spec, 1);
    tagged = PyTuple_GET_ITEM(spec, 4);
    if (!PyTuple_Check(fields) || !PyTuple_Check(tagged)) { PyErr_SetString(PyExc_ValueError, "fields"); goto fail; }
    sp->nfields = (int)PyTuple_GET_SIZE(fields);
    sp->ntagged = (int)PyTuple_GET_SIZE(tagged);
    sp->fields = arena_alloc(sp, sp->nfields * sizeof(FieldOp));
    sp->tagged = arena_alloc(sp, sp->ntagged * sizeof(FieldOp));
    if (!sp->fields || !sp->tagged) goto fail;
    for (int i = 0; i < sp->nfields; i++)
        if (parse_field(sp, PyTuple_GET_ITEM(fields, i), &sp->fields[i]) < 0) goto fail;
    for (int i = 0; i < sp->ntagged; i++)
        if (parse_field(sp, PyTuple_GET_ITEM(tagged, i), &sp->tagged[i]) < 0) goto fail;
    struct_sizes(sp);
    sp->out = parse_builder(sp, PyTuple_GET_ITEM(spec, 5));
    if (!sp->out) goto fail;
    enc = PyTuple_GET_ITEM(spec, 6);
    if (enc != Py_None) {
        if (spec_int(enc, 0, &sp->ein) < 0) goto fail;
        if (sp->ein == E_OBJECT) {  /* (E_OBJECT, type, absent ((off, default), ...), unknown_off, unknown_empty) */
            PyObject *ty = spec_obj(enc, 1), *absent = spec_obj(enc, 2);
            if (!ty || !PyType_Check(ty) || !absent || !PyTuple_Check(absent)) { PyErr_SetString(PyExc_ValueError, "enc"); goto fail; }
            sp->etype = (PyTypeObject *)ty;
            sp->nabsent = (int)PyTuple_GET_SIZE(absent);
            sp->absent_off = arena_alloc(sp, sp->nabsent * sizeof(Py_ssize_t));
            sp->absent_def = arena_alloc(sp, sp->nabsent * sizeof(PyObject *));
            if (!sp->absent_off || !sp->absent_def) goto fail;
            for (int i = 0; i < sp->nabsent; i++) {
                PyObject *a = PyTuple_GET_ITEM(absent, i);
                if (spec_ssize(a, 0, &sp->absent_off[i]) < 0 || !(sp->absent_def[i] = spec_obj(a, 1))) goto fail;
            }
            if (spec_ssize(enc, 3, &sp->unknown_off) < 0 || spec_int(enc, 4, &sp->unknown_empty) < 0) goto fail;
        } else if (sp->ein == E_TUPLE) {
            if (spec_int(enc, 1, &sp->en) < 0) goto fail;
        } else if (sp->ein == E_ITEM) {
            PyObject *ty = spec_obj(enc, 1);
            if (!ty) goto fail;
            sp->etype = ty == Py_None ? NULL : (PyTypeObject *)ty;
        } else {
            PyErr_SetString(PyExc_ValueError, "unknown encoder input");
            goto fail;
        }
    }
    return (PyObject *)sp;
fail:
    Py_DECREF(sp);
    return NULL;
}

/* --- helpers -------------------------------------------------------------------------------------- */

#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

#if SIZEOF_PY_UHASH_T > 4
#define XXPRIME_1 ((Py_uhash_t)11400714785074694791ULL)
#define XXPRIME_2 ((Py_uhash_t)14029467366897019727ULL)
#define XXPRIME_5 ((Py_uhash_t)2870177450012600261ULL)
#define XXROTATE(x) ((x << 31) | (x >> 33))
#else
#define XXPRIME_1 ((Py_uhash_t)2654435761UL)
#define XXPRIME_2 ((Py_uhash_t)2246822519UL)
#define XXPRIME_5 ((Py_uhash_t)374761393UL)
#define XXROTATE(x) ((x << 13) | (x >> 19))
#endif

/* hash((o.a, o.b, ...)): CPython's tuple hash over the object's slots, what a frozen dataclass's __hash__
   returns (native.py checks that it does, class by class, before asking for it) */
static Py_hash_t slots_hash(PyObject *o, const Py_ssize_t *offs, int n) {
    Py_uhash_t acc = XXPRIME_5;
    for (int i = 0; i < n; i++) {
        PyObject *item = SLOT(o, offs[i]);
        if (!item) return -1;
        Py_uhash_t lane = PyObject_Hash(item);
        if (lane == (Py_uhash_t)-1) return -1;
        acc += lane * XXPRIME_2;
        acc = XXROTATE(acc);
        acc *= XXPRIME_1;
    }
    acc += n ^ (XXPRIME_5 ^ 3527539UL);
    if (acc == (Py_uhash_t)-1) return 1546275796;
    return acc;
}

static PyObject *native_tuple_hash(PyObject *self, PyObject *t) {
    if (!PyTuple_Check(t)) { PyErr_SetString(PyExc_TypeError, "a tuple"); return NULL; }
    Py_uhash_t acc = XXPRIME_5;
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_uhash_t lane = PyObject_Hash(PyTuple_GET_ITEM(t, i));
        if (lane == (Py_uhash_t)-1) return NULL;
        acc += lane * XXPRIME_2;
        acc = XXROTATE(acc);
        acc *= XXPRIME_1;
    }
    acc += n ^ (XXPRIME_5 ^ 3527539UL);
    if (acc == (Py_uhash_t)-1) acc = 1546275796;
    return PyLong_FromSsize_t((Py_hash_t)acc);
}

static int dict_set_hashed(PyObject *d, PyObject *k, PyObject *v, Py_hash_t h, int unique) {
#if PY_VERSION_HEX < 0x030D0000
    if (unique && _PyDict_GetItem_KnownHash(d, k, h)) return -1;
    if (unique && PyErr_Occurred()) return -1;
    return _PyDict_SetItem_KnownHash(d, k, v, h);
#else
    (void)h;
    if (unique) {
        int c = PyDict_Contains(d, k);
        if (c != 0) return -1;
    }
    return PyDict_SetItem(d, k, v);
#endif
}

/* a dict for n entries, sized once instead of grown step by step; a count read from the input sizes it for at
   most one entry per 8 bytes that remain (``room``), so that a count the bytes cannot hold allocates no more
   than the input's size allows (a dict beyond that grows as usual) */
static PyObject *new_dict(int64_t n, int64_t room) {
#if PY_VERSION_HEX < 0x030D0000
    if (n > room / 8) n = room / 8;
    return _PyDict_NewPresized((Py_ssize_t)n);
#else
    (void)n;
    (void)room;
    return PyDict_New();
#endif
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char B64URL[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
static const char HEXD[] = "0123456789abcdef";

static PyObject *b64_str(const unsigned char *p, Py_ssize_t n, const char *alpha, int pad) {
    Py_ssize_t full = n / 3, rest = n % 3;
    Py_ssize_t len = 4 * full + (rest ? (pad ? 4 : rest + 1) : 0);
    PyObject *s = PyUnicode_New(len, 127);
    if (!s) return NULL;
    Py_UCS1 *o = PyUnicode_1BYTE_DATA(s);
    for (Py_ssize_t i = 0; i < full; i++, p += 3) {
        uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
        *o++ = alpha[v >> 18]; *o++ = alpha[(v >> 12) & 63]; *o++ = alpha[(v >> 6) & 63]; *o++ = alpha[v & 63];
    }
    if (rest == 1) {
        uint32_t v = (uint32_t)p[0] << 16;
        *o++ = alpha[v >> 18]; *o++ = alpha[(v >> 12) & 63];
        if (pad) { *o++ = '='; *o++ = '='; }
    } else if (rest == 2) {
        uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8;
        *o++ = alpha[v >> 18]; *o++ = alpha[(v >> 12) & 63]; *o++ = alpha[(v >> 6) & 63];
        if (pad) *o++ = '=';
    }
    return s;
}

static PyObject *hex_str(const unsigned char *p, Py_ssize_t n, int dashes) {
    Py_ssize_t len = 2 * n + (dashes ? 4 : 0);
    PyObject *s = PyUnicode_New(len, 127);
    if (!s) return NULL;
    Py_UCS1 *o = PyUnicode_1BYTE_DATA(s);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (dashes && (i == 4 || i == 6 || i == 8 || i == 10)) *o++ = '-';
        *o++ = HEXD[p[i] >> 4];
        *o++ = HEXD[p[i] & 15];
    }
    return s;
}

static PyObject *long_from_16(const unsigned char *p) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(p, 16, Py_ASNATIVEBYTES_BIG_ENDIAN);
#else
    return _PyLong_FromByteArray(p, 16, 0, 0);
#endif
}

/* a non-negative int below 2**128, big-endian (a negative one or a larger one: -1, an exception set) */
static int long_to_16(PyObject *v, unsigned char *out) {
    if (!PyLong_CheckExact(v)) return -1;
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t r = PyLong_AsNativeBytes(v, out, 16, Py_ASNATIVEBYTES_BIG_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER |
                                                   Py_ASNATIVEBYTES_REJECT_NEGATIVE);
    return (r < 0 || r > 16) ? -1 : 0;
#else
    return _PyLong_AsByteArray((PyLongObject *)v, out, 16, 0, 0);  /* unsigned: a negative int is refused */
#endif
}

static PyObject *make_uuid(const unsigned char *p, int conv) {
    if (conv == C_KUUID) return b64_str(p, 16, B64URL, 0);
    if (conv == C_SUUID) return hex_str(p, 16, 1);
    if (!UUID_T) return NULL;
    PyObject *i = long_from_16(p);
    if (!i) return NULL;
    PyObject *u = UUID_T->tp_alloc(UUID_T, 0);
    if (!u) { Py_DECREF(i); return NULL; }
    SLOT(u, UUID_INT_OFF) = i;
    Py_INCREF(UUID_SAFE_UNKNOWN);
    SLOT(u, UUID_SAFE_OFF) = UUID_SAFE_UNKNOWN;
    return u;
}

/* --- decoding ------------------------------------------------------------------------------------- */

typedef struct {
    const unsigned char *b;
    Py_ssize_t end;
    PyObject **root;   /* the root struct's slots (S_LOOKUP) */
    PyObject *target;  /* the dict that pair elements fill */
    int unique;
} DC;

static int rd_uvarint(DC *c, Py_ssize_t *pos, uint32_t *out) {
    Py_ssize_t p = *pos;
    uint64_t v = 0;
    int shift = 0;
    for (int i = 0; i < 5; i++) {
        if (p >= c->end) return -1;
        unsigned b = c->b[p++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            if (v >> 32) return -1;
            *out = (uint32_t)v;
            *pos = p;
            return 0;
        }
        shift += 7;
    }
    return -1;
}

static inline int32_t be32(const unsigned char *p) {
    return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

static inline int16_t be16(const unsigned char *p) { return (int16_t)((uint16_t)p[0] << 8 | p[1]); }

static inline int64_t be64(const unsigned char *p) {
    return (int64_t)((uint64_t)(uint32_t)be32(p) << 32 | (uint32_t)be32(p + 4));
}

/* a length or count: int16/int32, or compact (uvarint N+1); -1 is null */
static int rd_len(DC *c, Py_ssize_t *pos, int compact, int wide, int64_t *n) {
    if (compact) {
        uint32_t u;
        if (rd_uvarint(c, pos, &u) < 0) return -1;
        *n = (int64_t)u - 1;
        return 0;
    }
    Py_ssize_t p = *pos;
    if (wide) {
        if (4 > c->end - p) return -1;
        *n = be32(c->b + p);
        *pos = p + 4;
    } else {
        if (2 > c->end - p) return -1;
        *n = be16(c->b + p);
        *pos = p + 2;
    }
    return 0;
}

static PyObject *ascii_or_null(const unsigned char *p, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if (p[i] & 0x80) return NULL;
    PyObject *s = PyUnicode_New(n, 127);
    if (s) memcpy(PyUnicode_1BYTE_DATA(s), p, n);
    return s;
}

/* Java's modified UTF-8 (DataInputStream.readUTF), as lenient and as strict as codec.wire.encodings'
   mutf8_decode: one-, two- and three-byte forms to UTF-16 code units, then those units (lone surrogates
   kept) to a str. NULL without an exception on a malformed byte: the reference reports it. */
static PyObject *mutf8_decode(const unsigned char *p, Py_ssize_t n) {
    unsigned char small[512];
    unsigned char *u = 2 * n <= (Py_ssize_t)sizeof(small) ? small : PyMem_Malloc(2 * n + 1);
    if (!u) return PyErr_NoMemory();
    Py_ssize_t k = 0, i = 0;
    PyObject *out = NULL;
    while (i < n) {
        unsigned c = p[i], top = c >> 4, unit;
        if (top < 8) {
            unit = c;
            i += 1;
        } else if (top == 12 || top == 13) {
            if (i + 1 >= n || (p[i + 1] & 0xC0) != 0x80) goto done;
            unit = (c & 0x1F) << 6 | (p[i + 1] & 0x3F);
            i += 2;
        } else if (top == 14) {
            if (i + 2 >= n || (p[i + 1] & 0xC0) != 0x80 || (p[i + 2] & 0xC0) != 0x80) goto done;
            unit = (c & 0x0F) << 12 | (p[i + 1] & 0x3F) << 6 | (p[i + 2] & 0x3F);
            i += 3;
        } else {
            goto done;
        }
        u[k++] = (unsigned char)(unit >> 8);
        u[k++] = (unsigned char)unit;
    }
    {
        int order = 1;
        out = PyUnicode_DecodeUTF16((const char *)u, k, "surrogatepass", &order);
    }
done:
    if (u != small) PyMem_Free(u);
    return out;
}

/* UTF-8 as Java's new String(bytes, UTF_8) reads it (String.decodeUTF8_UTF16 of JDK 17; Kafka's Type.STRING through
   Utils.utf8): valid UTF-8 as PyUnicode_DecodeUTF8 reads it; U+FFFD for an encoded surrogate (one for its three
   bytes), for the maximal start of a malformed 3- or 4-byte sequence, for each byte that cannot start one; a
   sequence cut short by the end is one U+FFFD. codec.wire.encodings.java_utf8_decode is the same rule in Python
   (tests/wire/test_java_strings.py holds both to Java's output). */
static PyObject *java_utf8_decode(const unsigned char *p, Py_ssize_t n) {
    PyObject *s = PyUnicode_DecodeUTF8((const char *)p, n, NULL);
    if (s || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) return s;
    PyErr_Clear();
    Py_UCS4 small[256];
    Py_UCS4 *u = n <= (Py_ssize_t)(sizeof(small) / sizeof(small[0])) ? small : PyMem_Malloc(n * sizeof(Py_UCS4));
    if (!u) return PyErr_NoMemory();
    Py_ssize_t k = 0, sp = 0;
    const Py_UCS4 R = 0xFFFD;
#define CONT(x) (((x) & 0xC0) == 0x80)
    while (sp < n) {
        unsigned b1 = p[sp++];
        if (b1 < 0x80) {
            u[k++] = b1;
        } else if (b1 >= 0xC2 && b1 <= 0xDF) { /* two bytes */
            if (sp < n) {
                unsigned b2 = p[sp];
                if (!CONT(b2)) {
                    u[k++] = R; /* (b2 is read again) */
                } else {
                    u[k++] = (b1 & 0x1F) << 6 | (b2 & 0x3F);
                    sp++;
                }
                continue;
            }
            u[k++] = R;
            break;
        } else if (b1 >> 4 == 0xE) { /* three bytes */
            if (sp + 1 < n) {
                unsigned b2 = p[sp], b3 = p[sp + 1];
                int bad2 = (b1 == 0xE0 && (b2 & 0xE0) == 0x80) || !CONT(b2);
                if (bad2 || !CONT(b3)) {
                    u[k++] = R;
                    sp += bad2 ? 0 : 1;
                    continue;
                }
                sp += 2;
                Py_UCS4 c = (b1 & 0x0F) << 12 | (b2 & 0x3F) << 6 | (b3 & 0x3F);
                u[k++] = (c >= 0xD800 && c <= 0xDFFF) ? R : c;
                continue;
            }
            u[k++] = R;
            if (sp < n && ((b1 == 0xE0 && (p[sp] & 0xE0) == 0x80) || !CONT(p[sp]))) continue;
            break;
        } else if (b1 >> 3 == 0x1E) { /* four bytes (F0-F7) */
            if (sp + 2 < n) {
                unsigned b2 = p[sp], b3 = p[sp + 1], b4 = p[sp + 2];
                Py_UCS4 uc = (b1 & 0x07) << 18 | (b2 & 0x3F) << 12 | (b3 & 0x3F) << 6 | (b4 & 0x3F);
                if (!CONT(b2) || !CONT(b3) || !CONT(b4) || uc < 0x10000 || uc > 0x10FFFF) {
                    u[k++] = R;
                    if (b1 > 0xF4 || (b1 == 0xF0 && (b2 < 0x90 || b2 > 0xBF)) || (b1 == 0xF4 && (b2 & 0xF0) != 0x80) ||
                        !CONT(b2))
                        ;
                    else if (!CONT(b3))
                        sp += 1;
                    else
                        sp += 2;
                    continue;
                }
                u[k++] = uc;
                sp += 3;
                continue;
            }
            if (b1 > 0xF4 || (sp < n && ((b1 == 0xF0 && (p[sp] < 0x90 || p[sp] > 0xBF)) ||
                                         (b1 == 0xF4 && (p[sp] & 0xF0) != 0x80) || !CONT(p[sp])))) {
                u[k++] = R;
                continue;
            }
            sp++;
            u[k++] = R;
            if (sp < n && !CONT(p[sp])) continue;
            break;
        } else {
            u[k++] = R;
        }
    }
#undef CONT
    s = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, u, k);
    if (u != small) PyMem_Free(u);
    return s;
}

/* ... and back: each UTF-16 code unit of the str (a lone surrogate is a unit of its own) in one to three
   bytes, NUL as C0 80. */
static PyObject *mutf8_encode(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), size = 0;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 cp = PyUnicode_READ(kind, data, i);
        size += cp >= 0x10000 ? 6 : (cp >= 1 && cp <= 0x7F) ? 1 : cp <= 0x7FF ? 2 : 3;
    }
    PyObject *b = PyBytes_FromStringAndSize(NULL, size);
    if (!b) return NULL;
    unsigned char *o = (unsigned char *)PyBytes_AS_STRING(b);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 cp = PyUnicode_READ(kind, data, i);
        unsigned units[2];
        int m = 1;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            units[0] = 0xD800 | (cp >> 10);
            units[1] = 0xDC00 | (cp & 0x3FF);
            m = 2;
        } else {
            units[0] = cp;
        }
        for (int j = 0; j < m; j++) {
            unsigned c = units[j];
            if (c >= 1 && c <= 0x7F) {
                *o++ = (unsigned char)c;
            } else if (c <= 0x7FF) {
                *o++ = (unsigned char)(0xC0 | (c >> 6));
                *o++ = (unsigned char)(0x80 | (c & 0x3F));
            } else {
                *o++ = (unsigned char)(0xE0 | (c >> 12));
                *o++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
                *o++ = (unsigned char)(0x80 | (c & 0x3F));
            }
        }
    }
    return b;
}

static PyObject *dec_struct(StructProg *sp, DC *c, Py_ssize_t *pos, PyObject **parent);

static PyObject *dec_leaf(FieldOp *f, DC *c, Py_ssize_t *pos) {
    const unsigned char *b = c->b;
    Py_ssize_t p = *pos;
    PyObject *v = NULL;
    int64_t n;
    switch (f->kind) {
    case K_INT8:
        if (1 > c->end - p) return NULL;
        v = PyLong_FromLong((int8_t)b[p]);
        p += 1;
        break;
    case K_INT16:
        if (2 > c->end - p) return NULL;
        v = PyLong_FromLong(be16(b + p));
        p += 2;
        break;
    case K_UINT16:
        if (2 > c->end - p) return NULL;
        v = PyLong_FromLong((uint16_t)be16(b + p));
        p += 2;
        break;
    case K_INT32:
        if (4 > c->end - p) return NULL;
        v = PyLong_FromLong(be32(b + p));
        p += 4;
        break;
    case K_INT64:
        if (8 > c->end - p) return NULL;
        v = PyLong_FromLongLong(be64(b + p));
        p += 8;
        break;
    case K_BOOL:
        if (1 > c->end - p) return NULL;
        v = b[p] ? Py_True : Py_False;
        Py_INCREF(v);
        p += 1;
        break;
    case K_UUID:
        if (16 > c->end - p) return NULL;
        v = make_uuid(b + p, f->conv);
        p += 16;
        break;
    case K_STRING:
        if (rd_len(c, &p, f->flags & F_COMPACT, 0, &n) < 0) return NULL;
        if (n < 0) {
            if (n != -1 || !(f->flags & F_NULLABLE)) return NULL;
            v = Py_None;
            Py_INCREF(v);
            break;
        }
        if (n > 32767 || n > c->end - p) return NULL;
        v = (f->flags & F_JAVA_UTF8) ? java_utf8_decode(b + p, (Py_ssize_t)n)
                                     : PyUnicode_DecodeUTF8((const char *)b + p, (Py_ssize_t)n, NULL);
        p += n;
        break;
    case K_BYTES:
        if (rd_len(c, &p, f->flags & F_COMPACT, 1, &n) < 0) return NULL;
        if (n < 0) {
            if (n != -1 || !(f->flags & F_NULLABLE)) return NULL;
            v = Py_None;
            Py_INCREF(v);
            break;
        }
        if (n > c->end - p) return NULL;
        switch (f->conv) {
        case C_B64: v = b64_str(b + p, (Py_ssize_t)n, B64, 1); break;
        case C_HEX: v = hex_str(b + p, (Py_ssize_t)n, 0); break;
        case C_UTF8_OR_NONE:
            if (n == 0) { v = Py_None; Py_INCREF(v); break; }
            /* fall through */
        case C_UTF8: v = PyUnicode_DecodeUTF8((const char *)b + p, (Py_ssize_t)n, NULL); break;
        default: v = PyBytes_FromStringAndSize((const char *)b + p, (Py_ssize_t)n);
        }
        p += n;
        break;
    case K_JAVAUTF:
        if (2 > c->end - p) return NULL;
        n = (uint16_t)be16(b + p);
        p += 2;
        if (n > c->end - p) return NULL;
        v = ascii_or_null(b + p, (Py_ssize_t)n);
        if (!v && !PyErr_Occurred()) v = mutf8_decode(b + p, (Py_ssize_t)n);
        p += n;
        break;
    case K_JAVACHARS:
        if (4 > c->end - p) return NULL;
        n = be32(b + p);
        p += 4;
        if (n <= 0) {
            v = Py_None;
            Py_INCREF(v);
            break;
        }
        if (2 * n > c->end - p) return NULL;
        {
            int order = 1;
            v = PyUnicode_DecodeUTF16((const char *)b + p, (Py_ssize_t)(2 * n), "surrogatepass", &order);
        }
        p += 2 * n;
        break;
    case K_STRUCT:
        if (f->flags & F_NULLABLE) {
            int present;
            if (f->flags & F_MARKER_UV) {
                uint32_t m;
                if (rd_uvarint(c, &p, &m) < 0) return NULL;
                present = m != 0;
            } else {
                if (1 > c->end - p) return NULL;
                present = b[p] < 128;
                p += 1;
            }
            if (!present) {
                v = Py_None;
                Py_INCREF(v);
                break;
            }
        }
        v = dec_struct(f->sub, c, &p, NULL);
        break;
    default:
        return NULL;
    }
    if (v) *pos = p;
    return v;
}

/* A dict-building array's value as its field asks (F_TO_*): the dict itself, or what the caller would make of
   it -- its values, its items, its entries as flat rows, its size -- built here instead. Steals ``d``; NULL
   without an exception is a miss (a row's key that is not a tuple). */
static PyObject *dict_result(int flags, PyObject *d) {
    if (!(flags & F_TO_ANY)) return d;
    PyObject *out = NULL;
    if (flags & F_TO_VALUES) {
        out = PyDict_Values(d);
    } else if (flags & F_TO_ITEMS) {
        out = PyDict_GET_SIZE(d) ? PyDict_Items(d) : Py_NewRef(Py_None);
    } else if (flags & F_TO_LEN) {
        out = PyLong_FromSsize_t(PyDict_GET_SIZE(d));
    } else {  /* F_TO_ROWS */
        out = PyList_New(PyDict_GET_SIZE(d));
        PyObject *k, *v;
        Py_ssize_t i = 0, j = 0;
        while (out && PyDict_Next(d, &i, &k, &v)) {
            if (!PyTuple_CheckExact(k)) { Py_CLEAR(out); break; }
            Py_ssize_t n = PyTuple_GET_SIZE(k);
            PyObject *row = PyTuple_New(n + 1);
            if (!row) { Py_CLEAR(out); break; }
            for (Py_ssize_t m = 0; m < n; m++) PyTuple_SET_ITEM(row, m, Py_NewRef(PyTuple_GET_ITEM(k, m)));
            PyTuple_SET_ITEM(row, n, Py_NewRef(v));
            PyList_SET_ITEM(out, j++, row);
        }
    }
    Py_DECREF(d);
    return out;
}

static PyObject *dec_field(FieldOp *f, DC *c, Py_ssize_t *pos, PyObject **slots) {
    if (!(f->flags & F_ARRAY)) {
        if (f->kind == K_STRUCT && !(f->flags & F_NULLABLE)) return dec_struct(f->sub, c, pos, slots);
        return dec_leaf(f, c, pos);
    }
    Py_ssize_t p = *pos;
    int64_t n;
    if (rd_len(c, &p, f->flags & F_COMPACT, 1, &n) < 0) return NULL;
    if (n < 0) {
        if (n != -1 || !(f->flags & F_ARR_NULLABLE)) return NULL;
        *pos = p;
        Py_RETURN_NONE;
    }
    if (n > c->end - p) return NULL;
    PyObject *out = NULL;
    if (f->amode == A_TUPLE || f->amode == A_LIST) {
        int tuple = f->amode == A_TUPLE;
        out = tuple ? PyTuple_New((Py_ssize_t)n) : PyList_New((Py_ssize_t)n);
        if (!out) return NULL;
        if (f->kind == K_INT32) {  /* the common array of ints, without the per-element dispatch */
            if (4 * n > c->end - p) { Py_DECREF(out); return NULL; }
            for (Py_ssize_t i = 0; i < n; i++, p += 4) {
                PyObject *x = PyLong_FromLong(be32(c->b + p));
                if (!x) { Py_DECREF(out); return NULL; }
                if (tuple) PyTuple_SET_ITEM(out, i, x); else PyList_SET_ITEM(out, i, x);
            }
        } else {
            for (Py_ssize_t i = 0; i < n; i++) {
                PyObject *x = f->kind == K_STRUCT ? dec_struct(f->sub, c, &p, slots) : dec_leaf(f, c, &p);
                if (!x) { Py_DECREF(out); return NULL; }
                if (tuple) PyTuple_SET_ITEM(out, i, x); else PyList_SET_ITEM(out, i, x);
            }
        }
        *pos = p;
        return out;
    }
    if (f->amode == A_COUNT || f->amode == A_COUNTS) {  /* every element read (and checked) */
        out = f->amode == A_COUNTS ? new_dict(n, c->end - p) : NULL;
        if (f->amode == A_COUNTS && !out) return NULL;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *x = f->kind == K_STRUCT ? dec_struct(f->sub, c, &p, slots) : dec_leaf(f, c, &p);
            if (!x) { Py_XDECREF(out); return NULL; }
            if (out) {  /* element -> its count so far, plus one */
                PyObject *old = PyDict_GetItemWithError(out, x);
                PyObject *count = old ? PyLong_FromSsize_t(PyLong_AsSsize_t(old) + 1)
                                      : PyErr_Occurred() ? NULL : PyLong_FromLong(1);
                int r = count ? PyDict_SetItem(out, x, count) : -1;
                Py_XDECREF(count);
                if (r < 0) { Py_DECREF(x); Py_DECREF(out); return NULL; }
            }
            Py_DECREF(x);
        }
        *pos = p;
        return out ? dict_result(f->flags, out) : PyLong_FromSsize_t((Py_ssize_t)n);
    }
    /* A_DICT: a new dict that the elements fill; A_INTO: the dict of an enclosing A_DICT array */
    if (f->kind != K_STRUCT) return NULL;
    PyObject *saved = c->target;
    int saved_unique = c->unique;
    if (f->amode == A_DICT) {
        /* elements that fill it through arrays of their own (A_INTO): as many entries as the bytes that remain
           can hold (new_dict still allows at most one per 8 bytes), instead of growing from n step by step */
        int64_t hint = n;
        if (f->sub->into_min > 0 && (c->end - p) / f->sub->into_min > hint) hint = (c->end - p) / f->sub->into_min;
        out = new_dict(hint, c->end - p);
        if (!out) return NULL;
        c->target = out;
        c->unique = (f->flags & F_UNIQUE) != 0;
    } else if (!c->target) {
        return NULL;
    }
    int ok = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = dec_struct(f->sub, c, &p, slots);
        if (!x) { ok = 0; break; }
        Py_DECREF(x);
    }
    c->target = saved;
    c->unique = saved_unique;
    if (!ok) { Py_XDECREF(out); return NULL; }
    *pos = p;
    if (f->amode == A_INTO) Py_RETURN_NONE;
    return dict_result(f->flags, out);
}

static PyObject *unknown_json(PyObject *unknown, int hexonly) {
    (void)hexonly;
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    PyObject *k, *v;
    Py_ssize_t i = 0;
    while (PyDict_Next(unknown, &i, &k, &v)) {
        PyObject *ks = PyObject_Str(k);
        PyObject *vs = ks ? hex_str((const unsigned char *)PyBytes_AS_STRING(v), PyBytes_GET_SIZE(v), 0) : NULL;
        if (!vs || PyDict_SetItem(d, ks, vs) < 0) {
            Py_XDECREF(ks);
            Py_XDECREF(vs);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(ks);
        Py_DECREF(vs);
    }
    return d;
}

static PyObject *build(Builder *bd, DC *c, PyObject **slots, PyObject **parent);

static PyObject *src_value(Src *s, DC *c, PyObject **slots, PyObject **parent) {
    PyObject *v;
    switch (s->kind) {
    case S_SLOT:
        v = slots[s->i];
        break;
    case S_PARENT:
        v = parent ? parent[s->i] : NULL;
        break;
    case S_EMPTY_NONE:
        v = slots[s->i];
        if (v && PyUnicode_Check(v) && PyUnicode_GET_LENGTH(v) == 0) v = Py_None;
        break;
    case S_CONST:
        v = s->obj;
        break;
    case S_NEWDICT:
        return PyDict_New();
    case S_CALL:
        return PyObject_CallNoArgs(s->obj);
    case S_BUILD:
        return build(s->build, c, slots, parent);
    case S_KEYS: {  /* a new dict: each array's elements as keys, with that array's value (a later key wins) */
        PyObject *d = PyDict_New();
        if (!d) return NULL;
        for (int k = 0; k < s->build->n; k++) {
            PyObject *a = slots[s->build->srcs[k].i];
            if (!a || !PyTuple_CheckExact(a)) { Py_DECREF(d); return NULL; }  /* (a null array: a miss) */
            for (Py_ssize_t x = 0; x < PyTuple_GET_SIZE(a); x++)
                if (PyDict_SetItem(d, PyTuple_GET_ITEM(a, x), s->build->srcs[k].obj) < 0) { Py_DECREF(d); return NULL; }
        }
        return d;
    }
    case S_LOOKUP: {
        PyObject *d = c->root ? c->root[s->i] : NULL;
        if (!d || !PyDict_CheckExact(d) || !slots[s->j]) return NULL;
        v = PyDict_GetItemWithError(d, slots[s->j]);
        break;
    }
    default:
        return NULL;
    }
    Py_XINCREF(v);
    return v;
}

/* src_value, with the sources most elements have (a slot, the parent's slot, a constant) taken here without a
   call */
static inline PyObject *src_fast(Src *s, DC *c, PyObject **slots, PyObject **parent) {
    PyObject *v;
    switch (s->kind) {
    case S_SLOT: v = slots[s->i]; break;
    case S_PARENT: v = parent ? parent[s->i] : NULL; break;
    case S_CONST: v = s->obj; break;
    default: return src_value(s, c, slots, parent);
    }
    Py_XINCREF(v);
    return v;
}

static PyObject *build(Builder *bd, DC *c, PyObject **slots, PyObject **parent) {
    PyObject *o, *v;
    switch (bd->kind) {
    case B_OBJECT:
        o = bd->type->tp_alloc(bd->type, 0);
        if (!o) return NULL;
        for (int i = 0; i < bd->n; i++) {
            v = src_fast(&bd->srcs[i], c, slots, parent);
            if (!v) { Py_DECREF(o); return NULL; }
            SLOT(o, bd->srcs[i].off) = v;
        }
        return o;
    case B_TUPLE:
        o = PyTuple_New(bd->n);
        if (!o) return NULL;
        for (int i = 0; i < bd->n; i++) {
            v = src_fast(&bd->srcs[i], c, slots, parent);
            if (!v) { Py_DECREF(o); return NULL; }
            PyTuple_SET_ITEM(o, i, v);
        }
        return o;
    case B_DICT:
        o = new_dict(bd->n, 8 * (int64_t)bd->n);  /* (n: the struct's fields, not the input's) */
        if (!o) return NULL;
        for (int i = 0; i < bd->n; i++) {
            Src *s = &bd->srcs[i];
            if (s->kind == S_UNKNOWN_JSON) {  /* only when there are unknown tags */
                PyObject *u = slots[s->i];
                if (!u || !PyDict_CheckExact(u)) { Py_DECREF(o); return NULL; }
                if (PyDict_GET_SIZE(u) == 0) continue;
                v = unknown_json(u, s->j);
            } else {
                v = src_value(s, c, slots, parent);
            }
            if (!v || PyDict_SetItem(o, s->key, v) < 0) { Py_XDECREF(v); Py_DECREF(o); return NULL; }
            Py_DECREF(v);
        }
        return o;
    case B_PAIR: {
        if (!c->target) return NULL;
        PyObject *k = src_fast(&bd->srcs[0], c, slots, parent);
        if (!k) return NULL;
        v = src_fast(&bd->srcs[1], c, slots, parent);
        if (!v) { Py_DECREF(k); return NULL; }
        int r;
        if (bd->nhash) {
            Py_hash_t h = slots_hash(k, bd->hash_offs, bd->nhash);
            r = h == -1 ? -1 : dict_set_hashed(c->target, k, v, h, c->unique);
        } else if (c->unique) {
            r = PyDict_Contains(c->target, k) != 0 ? -1 : PyDict_SetItem(c->target, k, v);
        } else {
            r = PyDict_SetItem(c->target, k, v);
        }
        Py_DECREF(k);
        Py_DECREF(v);
        if (r < 0) return NULL;
        Py_RETURN_NONE;
    }
    case B_NONE:
        Py_RETURN_NONE;
    case B_CHECK:  /* nothing kept: each source must be there (a lookup's absent key is a miss) */
        for (int i = 0; i < bd->n; i++) {
            v = src_value(&bd->srcs[i], c, slots, parent);
            if (!v) return NULL;
            Py_DECREF(v);
        }
        Py_RETURN_NONE;
    }
    return NULL;
}

static PyObject *dec_tagged(StructProg *sp, DC *c, Py_ssize_t *pos, PyObject **slots) {
    Py_ssize_t p = *pos;
    for (int i = 0; i < sp->ntagged; i++) {
        FieldOp *f = &sp->tagged[i];
        slots[f->slot] = f->dcall ? PyObject_CallNoArgs(f->ddefault) : (Py_INCREF(f->ddefault), f->ddefault);
        if (!slots[f->slot]) return NULL;
    }
    PyObject *unknown = PyDict_New();
    if (!unknown) return NULL;
    uint32_t n;
    if (rd_uvarint(c, &p, &n) < 0 || 2 * (int64_t)n > c->end - p) goto miss;
    int64_t last = -1;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t tag, size;
        if (rd_uvarint(c, &p, &tag) < 0 || (int64_t)tag <= last) goto miss;
        last = tag;
        if (rd_uvarint(c, &p, &size) < 0 || (int64_t)size > c->end - p) goto miss;
        FieldOp *known = NULL;
        for (int i = 0; i < sp->ntagged; i++)
            if ((uint32_t)sp->tagged[i].tag == tag) { known = &sp->tagged[i]; break; }
        if (known) {
            Py_ssize_t q = p, saved_end = c->end;
            c->end = p + size;
            PyObject *v = dec_field(known, c, &q, slots);
            c->end = saved_end;
            if (!v) goto miss;
            Py_SETREF(slots[known->slot], v);
        } else {
            PyObject *t = PyLong_FromUnsignedLong(tag);
            PyObject *raw = t ? PyBytes_FromStringAndSize((const char *)c->b + p, size) : NULL;
            int r = raw ? PyDict_SetItem(unknown, t, raw) : -1;
            Py_XDECREF(t);
            Py_XDECREF(raw);
            if (r < 0) goto miss;
        }
        p += size;
    }
    *pos = p;
    return unknown;
miss:
    Py_DECREF(unknown);
    return NULL;
}

static PyObject *dec_struct(StructProg *sp, DC *c, Py_ssize_t *pos, PyObject **parent) {
    PyObject *slots[MAXSLOTS];
    PyObject *out = NULL;
    Py_ssize_t p = *pos;
    int n = sp->nslots;
    for (int i = 0; i < n; i++) slots[i] = NULL;
    int root = c->root == NULL;
    if (root) c->root = slots;
    if (sp->fixed) {  /* fixed-width integers only: one bounds check, each read straight from the bytes */
        if (sp->fixed > c->end - p) goto done;
        for (int i = 0; i < sp->nfields; i++) {
            FieldOp *f = &sp->fields[i];
            const unsigned char *q = c->b + p;
            PyObject *v;
            switch (f->kind) {
            case K_INT8: v = PyLong_FromLong((int8_t)q[0]); p += 1; break;
            case K_BOOL: v = Py_NewRef(q[0] ? Py_True : Py_False); p += 1; break;
            case K_INT16: v = PyLong_FromLong(be16(q)); p += 2; break;
            case K_UINT16: v = PyLong_FromLong((uint16_t)be16(q)); p += 2; break;
            case K_INT32: v = PyLong_FromLong(be32(q)); p += 4; break;
            default: v = PyLong_FromLongLong(be64(q)); p += 8; break;  /* K_INT64 */
            }
            if (!v) goto done;
            slots[f->slot] = v;
        }
    } else {
        for (int i = 0; i < sp->nfields; i++) {
            FieldOp *f = &sp->fields[i];
            PyObject *v = dec_field(f, c, &p, slots);
            if (!v) goto done;
            slots[f->slot] = v;
        }
    }
    if (sp->flexible) {
        PyObject *u;
        if (p < c->end && c->b[p] == 0 && sp->ntagged == 0) {  /* the usual empty section */
            p += 1;
            u = PyDict_New();
        } else {
            u = dec_tagged(sp, c, &p, slots);
        }
        if (!u) goto done;
        if (sp->unknown_slot >= 0) slots[sp->unknown_slot] = u;
        else Py_DECREF(u);
    }
    out = build(sp->out, c, slots, parent);
    if (out) *pos = p;
done:
    if (root) c->root = NULL;
    for (int i = 0; i < n; i++) Py_XDECREF(slots[i]);
    return out;
}

/* The value at ``pos`` of ``buf`` and where it ends, or NULL: a miss (no exception) or an error that must
   propagate (not an Exception: KeyboardInterrupt ...). ``*size`` is the buffer's length. */
static PyObject *decode_at(StructProg *sp, PyObject *buf, Py_ssize_t *pos, Py_ssize_t *size) {
    Py_buffer view;
    int release = 0;
    DC c = {0};
    if (PyBytes_CheckExact(buf)) {
        c.b = (const unsigned char *)PyBytes_AS_STRING(buf);
        c.end = PyBytes_GET_SIZE(buf);
    } else {
        if (PyObject_GetBuffer(buf, &view, PyBUF_SIMPLE) < 0) {  /* not bytes-like: the reference decides */
            PyErr_Clear();
            return NULL;
        }
        release = 1;
        c.b = view.buf;
        c.end = view.len;
    }
    *size = c.end;
    PyObject *v = NULL;
    if (*pos >= 0 && *pos <= c.end) {
        /* No collection while the value is built: it makes no cycles, and a large one (Kafka's JSON of a
           100-member describe) would otherwise be walked by the young generation again and again. */
        int gc_was_on = PyGC_Disable();
        v = dec_struct(sp, &c, pos, NULL);
        if (gc_was_on) PyGC_Enable();
    }
    if (release) PyBuffer_Release(&view);
    if (!v && PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_Exception)) PyErr_Clear();  /* a miss */
    return v;
}

static PyObject *prog_decode(StructProg *sp, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1 || nargs > 2) { PyErr_SetString(PyExc_TypeError, "decode(buf, pos=0)"); return NULL; }
    Py_ssize_t pos = 0, size;
    if (nargs == 2) {
        pos = PyLong_AsSsize_t(args[1]);
        if (pos == -1 && PyErr_Occurred()) return NULL;
    }
    PyObject *v = decode_at(sp, args[0], &pos, &size);
    if (!v) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(Nn)", v, pos);
}

/* --- encoding ------------------------------------------------------------------------------------- */

/* The output is gathered: small pieces go to a scratch buffer, a bytes field of BIG bytes or more is only
   referenced, and the result is allocated once at the end (each byte copied once; no growing copies of a
   megabyte, whose fresh pages cost more than the copying in a VM). */
#define BIG 512

typedef struct {
    PyObject *obj;  /* a referenced bytes object, or NULL: bytes [off, off + n) of the scratch buffer */
    Py_ssize_t off, n;
} Seg;

typedef struct {
    char *p;
    Py_ssize_t n, cap, run;
    Seg *segs;
    int nseg, capseg;
    PyObject *const *extra;
    Py_ssize_t nextra;
    char stack[512];
    Seg stack_segs[8];
} W;

static void w_init(W *w, PyObject *const *extra, Py_ssize_t nextra) {
    w->p = w->stack;
    w->n = w->run = 0;
    w->cap = sizeof(w->stack);
    w->segs = w->stack_segs;
    w->nseg = 0;
    w->capseg = 8;
    w->extra = extra;
    w->nextra = nextra;
}

static void w_free(W *w) {
    for (int i = 0; i < w->nseg; i++) Py_XDECREF(w->segs[i].obj);
    if (w->p != w->stack) PyMem_Free(w->p);
    if (w->segs != w->stack_segs) PyMem_Free(w->segs);
}

static int w_reserve(W *w, Py_ssize_t k) {
    if (w->n + k <= w->cap) return 0;
    Py_ssize_t cap = w->cap * 2;
    if (cap < w->n + k) cap = w->n + k + 64;
    char *p = w->p == w->stack ? PyMem_Malloc(cap) : PyMem_Realloc(w->p, cap);
    if (!p) { PyErr_NoMemory(); return -1; }
    if (w->p == w->stack) memcpy(p, w->stack, w->n);
    w->p = p;
    w->cap = cap;
    return 0;
}

static int w_seg(W *w, PyObject *obj, Py_ssize_t off, Py_ssize_t n) {
    if (w->nseg == w->capseg) {
        int cap = w->capseg * 2;
        Seg *s = w->segs == w->stack_segs ? PyMem_Malloc(cap * sizeof(Seg)) : PyMem_Realloc(w->segs, cap * sizeof(Seg));
        if (!s) { PyErr_NoMemory(); return -1; }
        if (w->segs == w->stack_segs) memcpy(s, w->stack_segs, sizeof(w->stack_segs));
        w->segs = s;
        w->capseg = cap;
    }
    Py_XINCREF(obj);
    w->segs[w->nseg].obj = obj;
    w->segs[w->nseg].off = off;
    w->segs[w->nseg].n = n;
    w->nseg++;
    return 0;
}

/* a bytes object's contents: referenced when big, else copied */
static int w_bytes(W *w, PyObject *b) {
    Py_ssize_t n = PyBytes_GET_SIZE(b);
    if (n < BIG) {
        if (w_reserve(w, n) < 0) return -1;
        memcpy(w->p + w->n, PyBytes_AS_STRING(b), n);
        w->n += n;
        return 0;
    }
    if (w->n > w->run && w_seg(w, NULL, w->run, w->n - w->run) < 0) return -1;
    w->run = w->n;
    return w_seg(w, b, 0, n);
}

static PyObject *w_finish(W *w) {
    if (w->n > w->run && w_seg(w, NULL, w->run, w->n - w->run) < 0) return NULL;
    w->run = w->n;
    Py_ssize_t total = 0;
    for (int i = 0; i < w->nseg; i++) total += w->segs[i].n;
    PyObject *out = PyBytes_FromStringAndSize(NULL, total);
    if (!out) return NULL;
    char *o = PyBytes_AS_STRING(out);
    for (int i = 0; i < w->nseg; i++) {
        Seg *s = &w->segs[i];
        memcpy(o, s->obj ? PyBytes_AS_STRING(s->obj) : w->p + s->off, s->n);
        o += s->n;
    }
    return out;
}

static inline int w_put(W *w, const void *src, Py_ssize_t k) {
    if (w_reserve(w, k) < 0) return -1;
    memcpy(w->p + w->n, src, k);
    w->n += k;
    return 0;
}

static inline int w_be(W *w, uint64_t v, int size) {
    if (w_reserve(w, size) < 0) return -1;
    unsigned char *o = (unsigned char *)w->p + w->n;
    for (int i = size - 1; i >= 0; i--) { o[i] = (unsigned char)(v & 0xff); v >>= 8; }
    w->n += size;
    return 0;
}

static int w_uvarint(W *w, uint32_t v) {
    if (w_reserve(w, 5) < 0) return -1;
    unsigned char *o = (unsigned char *)w->p + w->n;
    int i = 0;
    while (v >= 0x80) { o[i++] = (unsigned char)(v | 0x80); v >>= 7; }
    o[i++] = (unsigned char)v;
    w->n += i;
    return 0;
}

/* a length or count; -1 for null */
static int w_len(W *w, int64_t n, int compact, int wide) {
    if (compact) return w_uvarint(w, (uint32_t)(n + 1));
    return w_be(w, (uint64_t)n, wide ? 4 : 2);
}

static int enc_struct(StructProg *sp, W *w, PyObject *in, PyObject *key, PyObject *val);

static int enc_leaf(FieldOp *f, W *w, PyObject *v) {
    long long x;
    int overflow;
    Py_ssize_t n;
    const char *raw;
    switch (f->kind) {
    case K_INT8: case K_INT16: case K_INT32: case K_INT64: case K_UINT16:
        if (!PyLong_CheckExact(v)) return -1;
        x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (x == -1 && PyErr_Occurred())) return -1;
        switch (f->kind) {
        case K_INT8: if (x < -128 || x > 127) return -1; return w_be(w, (uint64_t)x, 1);
        case K_INT16: if (x < -32768 || x > 32767) return -1; return w_be(w, (uint64_t)x, 2);
        case K_UINT16: if (x < 0 || x > 65535) return -1; return w_be(w, (uint64_t)x, 2);
        case K_INT32: if (x < INT32_MIN || x > INT32_MAX) return -1; return w_be(w, (uint64_t)x, 4);
        default: return w_be(w, (uint64_t)x, 8);
        }
    case K_BOOL:
        if (v == Py_True) return w_be(w, 1, 1);
        if (v == Py_False) return w_be(w, 0, 1);
        return -1;
    case K_UUID: {
        unsigned char u[16];
        if (!UUID_T || Py_TYPE(v) != UUID_T) return -1;
        PyObject *i = SLOT(v, UUID_INT_OFF);
        if (!i || long_to_16(i, u) < 0) return -1;
        return w_put(w, u, 16);
    }
    case K_STRING:
        if (v == Py_None) return (f->flags & F_NULLABLE) ? w_len(w, -1, f->flags & F_COMPACT, 0) : -1;
        if (!PyUnicode_CheckExact(v)) return -1;
        raw = PyUnicode_AsUTF8AndSize(v, &n);
        if (!raw || n > 32767) return -1;
        if (w_len(w, n, f->flags & F_COMPACT, 0) < 0) return -1;
        return w_put(w, raw, n);
    case K_BYTES:
        if (v == Py_None) return (f->flags & F_NULLABLE) ? w_len(w, -1, f->flags & F_COMPACT, 1) : -1;
        if (!PyBytes_CheckExact(v)) return -1;
        n = PyBytes_GET_SIZE(v);
        if (n > INT32_MAX - 1) return -1;
        if (w_len(w, n, f->flags & F_COMPACT, 1) < 0) return -1;
        return w_bytes(w, v);
    case K_JAVAUTF: {
        if (!PyUnicode_CheckExact(v)) return -1;
        if (PyUnicode_IS_ASCII(v) && !memchr(PyUnicode_1BYTE_DATA(v), 0, PyUnicode_GET_LENGTH(v))) {
            n = PyUnicode_GET_LENGTH(v);
            if (n > 65535 || w_be(w, (uint64_t)n, 2) < 0) return -1;
            return w_put(w, PyUnicode_1BYTE_DATA(v), n);
        }
        PyObject *b = mutf8_encode(v);
        if (!b) return -1;
        int r = -1;
        if (PyBytes_CheckExact(b) && PyBytes_GET_SIZE(b) <= 65535 && w_be(w, (uint64_t)PyBytes_GET_SIZE(b), 2) == 0)
            r = w_put(w, PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b));
        Py_DECREF(b);
        return r;
    }
    case K_JAVACHARS: {
        if (v == Py_None || (PyUnicode_CheckExact(v) && PyUnicode_GET_LENGTH(v) == 0)) return w_be(w, 0, 4);
        if (!PyUnicode_CheckExact(v)) return -1;
        PyObject *b = PyUnicode_AsEncodedString(v, "utf-16-be", "surrogatepass");
        if (!b) return -1;
        int r = -1;
        if (PyBytes_GET_SIZE(b) / 2 <= INT32_MAX && w_be(w, (uint64_t)(PyBytes_GET_SIZE(b) / 2), 4) == 0)
            r = w_put(w, PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b));
        Py_DECREF(b);
        return r;
    }
    case K_STRUCT:
        if (f->flags & F_NULLABLE) {
            /* null: -1, or in a tagged field the uvarint 0 (present: 1 either way) */
            if (v == Py_None) return w_be(w, (f->flags & F_MARKER_UV) ? 0 : 0xff, 1);
            if (w_be(w, 1, 1) < 0) return -1;
        }
        return enc_struct(f->sub, w, v, NULL, NULL);
    }
    return -1;
}

static int enc_value(FieldOp *f, W *w, PyObject *v) {
    if (!(f->flags & F_ARRAY)) return enc_leaf(f, w, v);
    if (v == Py_None) return (f->flags & F_ARR_NULLABLE) ? w_len(w, -1, f->flags & F_COMPACT, 1) : -1;
    if (f->ain) {  /* dict items: each element is given (key, value) */
        if (!PyDict_CheckExact(v) || f->kind != K_STRUCT) return -1;
        Py_ssize_t n = PyDict_GET_SIZE(v), i = 0, seen = 0;
        if (w_len(w, n, f->flags & F_COMPACT, 1) < 0) return -1;
        PyObject *k, *x;
        while (PyDict_Next(v, &i, &k, &x)) {
            Py_INCREF(k);
            Py_INCREF(x);
            int r = enc_struct(f->sub, w, NULL, k, x);
            Py_DECREF(k);
            Py_DECREF(x);
            if (r < 0) return -1;
            seen++;
        }
        return seen == n && PyDict_GET_SIZE(v) == n ? 0 : -1;
    }
    int tuple = PyTuple_CheckExact(v);
    if (!tuple && !PyList_CheckExact(v)) return -1;
    Py_ssize_t n = Py_SIZE(v);
    if (n > INT32_MAX - 1 || w_len(w, n, f->flags & F_COMPACT, 1) < 0) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!tuple && i >= PyList_GET_SIZE(v)) return -1;  /* a list changed under us */
        PyObject *x = tuple ? PyTuple_GET_ITEM(v, i) : PyList_GET_ITEM(v, i);
        Py_INCREF(x);
        int r = enc_leaf(f, w, x);
        Py_DECREF(x);
        if (r < 0) return -1;
    }
    return Py_SIZE(v) == n ? 0 : -1;
}

/* the value the field writes: borrowed, or NULL (a miss) */
static PyObject *enc_get(StructProg *sp, FieldOp *f, W *w, PyObject *in, PyObject *key, PyObject *val) {
    PyObject *v;
    switch (f->gsrc) {
    case G_OFF: return SLOT(in, f->goff);
    case G_IDX: return PyTuple_GET_ITEM(in, f->gidx);
    case G_KEY: return key;
    case G_VALUE: return val;
    case G_CONST: return f->gconst;
    case G_KEYOFF:
        if (!key || !sp->etype || Py_TYPE(key) != sp->etype) return NULL;
        return SLOT(key, f->goff);
    case G_EXTRA:
        return f->gidx < w->nextra ? w->extra[f->gidx] : NULL;
    case G_LOOKUP: {
        if (f->gidx >= w->nextra || !in || !PyDict_CheckExact(w->extra[f->gidx])) return NULL;
        PyObject *k = SLOT(in, f->goff);
        if (!k) return NULL;
        v = PyDict_GetItemWithError(w->extra[f->gidx], k);
        return v;
    }
    }
    return NULL;
}

static int enc_field(StructProg *sp, FieldOp *f, W *w, PyObject *in, PyObject *key, PyObject *val) {
    PyObject *v = enc_get(sp, f, w, in, key, val);
    if (!v) return -1;
    if (f->econv == EC_NONE) {
        Py_INCREF(v);
        int r = enc_value(f, w, v);
        Py_DECREF(v);
        return r;
    }
    /* EC_UTF8 / EC_UTF8_NONE_EMPTY: a str model value for a bytes field */
    if (v == Py_None && f->econv == EC_UTF8_NONE_EMPTY) return w_len(w, 0, f->flags & F_COMPACT, 1);
    if (!PyUnicode_CheckExact(v)) return -1;
    Py_ssize_t n;
    const char *raw = PyUnicode_AsUTF8AndSize(v, &n);
    if (!raw || w_len(w, n, f->flags & F_COMPACT, 1) < 0) return -1;
    return w_put(w, raw, n);
}

typedef struct { uint32_t tag; PyObject *raw; } TagOut;

static int tag_cmp(const void *a, const void *b) {
    uint32_t x = ((const TagOut *)a)->tag, y = ((const TagOut *)b)->tag;
    return x < y ? -1 : x > y;
}

/* known tagged fields away from their defaults, then unknown tags, in tag order */
static int enc_tagged(StructProg *sp, W *w, PyObject *in) {
    PyObject *unknown = SLOT(in, sp->unknown_off);
    if (!unknown || !PyDict_CheckExact(unknown)) return -1;
    Py_ssize_t nu = PyDict_GET_SIZE(unknown);
    if (nu == 0 && sp->ntagged == 0) return w_be(w, 0, 1);
    Py_ssize_t cap = nu + sp->ntagged, n = 0;
    TagOut *outs = PyMem_Calloc(cap ? cap : 1, sizeof(TagOut));
    if (!outs) return -1;
    int r = -1;
    for (int i = 0; i < sp->ntagged; i++) {
        FieldOp *f = &sp->tagged[i];
        PyObject *v = SLOT(in, f->goff);
        if (!v) goto done;
        if (v == f->tdefault) continue;
        int eq = PyObject_RichCompareBool(v, f->tdefault, Py_EQ);
        if (eq < 0) goto done;
        if (eq) continue;
        W sub;
        w_init(&sub, w->extra, w->nextra);
        Py_INCREF(v);
        int e = enc_value(f, &sub, v);
        Py_DECREF(v);
        PyObject *raw = e < 0 ? NULL : w_finish(&sub);
        w_free(&sub);
        if (!raw) goto done;
        outs[n].tag = (uint32_t)f->tag;
        outs[n].raw = raw;
        n++;
    }
    {
        PyObject *k, *v;
        Py_ssize_t i = 0;
        while (PyDict_Next(unknown, &i, &k, &v)) {
            if (!PyLong_CheckExact(k) || !PyBytes_CheckExact(v)) goto done;
            unsigned long t = PyLong_AsUnsignedLong(k);
            if (PyErr_Occurred() || t > 0xFFFFFFFFUL) goto done;
            for (Py_ssize_t j = 0; j < n; j++)
                if (outs[j].tag == t) goto done;  /* a known field written under an unknown's tag */
            for (int j = 0; j < sp->ntagged; j++)
                if ((unsigned long)sp->tagged[j].tag == t) goto done;
            Py_INCREF(v);
            outs[n].tag = (uint32_t)t;
            outs[n].raw = v;
            n++;
        }
    }
    qsort(outs, n, sizeof(TagOut), tag_cmp);
    if (w_uvarint(w, (uint32_t)n) < 0) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t size = PyBytes_GET_SIZE(outs[i].raw);
        if (size > 0xFFFFFFFFLL || w_uvarint(w, outs[i].tag) < 0 || w_uvarint(w, (uint32_t)size) < 0 ||
            w_bytes(w, outs[i].raw) < 0)
            goto done;
    }
    r = 0;
done:
    for (Py_ssize_t i = 0; i < n; i++) Py_DECREF(outs[i].raw);
    PyMem_Free(outs);
    return r;
}

static int enc_struct(StructProg *sp, W *w, PyObject *in, PyObject *key, PyObject *val) {
    switch (sp->ein) {
    case E_OBJECT:
        if (!in || Py_TYPE(in) != sp->etype) return -1;
        for (int i = 0; i < sp->nabsent; i++) {  /* a field this version lacks must hold its default */
            PyObject *v = SLOT(in, sp->absent_off[i]);
            if (!v) return -1;
            if (v != sp->absent_def[i] && PyObject_RichCompareBool(v, sp->absent_def[i], Py_EQ) != 1) return -1;
        }
        break;
    case E_TUPLE:
        if (!in || !PyTuple_CheckExact(in) || PyTuple_GET_SIZE(in) != sp->en) return -1;
        break;
    case E_ITEM:
        if (!key || !val) return -1;
        if (sp->etype && Py_TYPE(key) != sp->etype) return -1;
        break;
    default:
        return -1;
    }
    for (int i = 0; i < sp->nfields; i++)
        if (enc_field(sp, &sp->fields[i], w, in, key, val) < 0) return -1;
    if (sp->ein == E_OBJECT) {
        if (sp->flexible) return enc_tagged(sp, w, in);
        if (sp->unknown_off >= 0 && sp->unknown_empty) {
            PyObject *u = SLOT(in, sp->unknown_off);
            if (!u || PyObject_IsTrue(u) != 0) return -1;
        }
    } else if (sp->flexible) {
        return w_be(w, 0, 1);
    }
    return 0;
}

static PyObject *prog_encode(StructProg *sp, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1) { PyErr_SetString(PyExc_TypeError, "encode(value, *extra)"); return NULL; }
    if (!sp->ein) Py_RETURN_NONE;
    W w;
    w_init(&w, args + 1, nargs - 1);
    PyObject *in = args[0];
    Py_INCREF(in);
    int r = enc_struct(sp, &w, in, NULL, NULL);
    Py_DECREF(in);
    PyObject *out = r == 0 ? w_finish(&w) : NULL;
    w_free(&w);
    if (out) return out;
    if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_Exception)) return NULL;
    PyErr_Clear();
    Py_RETURN_NONE;
}

/* --- bound decoders: a program and what to make of its value, in one call ------------------------- */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    StructProg *prog;
    PyObject *make;    /* called with (*prefix, value, end, trailing count) or (*prefix, value, trailing bytes);
                          NULL: the value alone */
    PyObject *prefix;  /* a tuple */
    Py_ssize_t start;
    int trailing_bytes;
} Bound;

static PyObject *bound_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Bound *b = (Bound *)self;
    if (kwnames || PyVectorcall_NARGS(nargsf) != 1) {
        PyErr_SetString(PyExc_TypeError, "a bound decoder takes the buffer alone");
        return NULL;
    }
    Py_ssize_t pos = b->start, size = 0;
    PyObject *v = decode_at(b->prog, args[0], &pos, &size);
    if (!v) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE;
    }
    if (!b->make) return v;
    PyObject *call[8];
    Py_ssize_t n = PyTuple_GET_SIZE(b->prefix), k = 0;
    for (Py_ssize_t i = 0; i < n; i++) call[k++] = PyTuple_GET_ITEM(b->prefix, i);
    call[k++] = v;
    PyObject *a = NULL, *t = NULL, *out = NULL;
    if (b->trailing_bytes) {
        if (!PyBytes_CheckExact(args[0])) { Py_DECREF(v); Py_RETURN_NONE; }  /* (a slice of bytes alone) */
        t = PyBytes_FromStringAndSize(PyBytes_AS_STRING(args[0]) + pos, size - pos);
        call[k++] = t;
    } else {
        a = PyLong_FromSsize_t(pos);
        t = PyLong_FromSsize_t(size - pos);
        call[k++] = a;
        call[k++] = t;
    }
    if (t && (b->trailing_bytes || a)) out = PyObject_Vectorcall(b->make, call, k, NULL);
    Py_DECREF(v);
    Py_XDECREF(a);
    Py_XDECREF(t);
    return out;
}

static void bound_dealloc(Bound *b) {
    Py_XDECREF(b->prog);
    Py_XDECREF(b->make);
    Py_XDECREF(b->prefix);
    Py_TYPE(b)->tp_free((PyObject *)b);
}

static PyTypeObject BoundType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "codec.wire._native.Bound",
    .tp_basicsize = sizeof(Bound),
    .tp_dealloc = (destructor)bound_dealloc,
    .tp_vectorcall_offset = offsetof(Bound, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "bound(program, make)(buf): make(value, end, trailing) of buf's value from offset 0, or None.",
};

static PyObject *native_bound(PyObject *self, PyObject *args) {
    PyObject *prog, *make, *prefix;
    Py_ssize_t start;
    int trailing_bytes;
    if (!PyArg_ParseTuple(args, "O!OO!np", &StructProgType, &prog, &make, &PyTuple_Type, &prefix, &start,
                          &trailing_bytes))
        return NULL;
    if (PyTuple_GET_SIZE(prefix) > 5 || start < 0) { PyErr_SetString(PyExc_ValueError, "prefix or start"); return NULL; }
    Bound *b = PyObject_New(Bound, &BoundType);
    if (!b) return NULL;
    b->vectorcall = bound_vectorcall;
    Py_INCREF(prog);
    b->prog = (StructProg *)prog;
    b->make = make == Py_None ? NULL : (Py_INCREF(make), make);
    Py_INCREF(prefix);
    b->prefix = prefix;
    b->start = start;
    b->trailing_bytes = trailing_bytes;
    return (PyObject *)b;
}

/* --- each: one decoder per version over a list of buffers ------------------------------------------- */

/* each(table, buffers, width, max_size) -> [table[version](buf) or None for buf in buffers]: the version is
   the buffer's first ``width`` bytes (2: unsigned, 4: signed, big-endian); a buffer that is not bytes, shorter
   than ``width`` or longer than ``max_size``, a version the table lacks and a decoder's None all give None.
   What a batch's Python loop did per record -- read the version, look its decoder up, call it -- without a
   Python frame per record. An exception other than a miss propagates. */
static PyObject *native_each(PyObject *self, PyObject *args) {
    PyObject *table, *bufs;
    int width;
    Py_ssize_t max_size;
    if (!PyArg_ParseTuple(args, "O!O!in", &PyDict_Type, &table, &PyList_Type, &bufs, &width, &max_size)) return NULL;
    if (width != 2 && width != 4) { PyErr_SetString(PyExc_ValueError, "width: 2 or 4"); return NULL; }
    Py_ssize_t n = PyList_GET_SIZE(bufs);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *buf = PyList_GET_ITEM(bufs, i), *r = NULL;
        Py_ssize_t size = PyBytes_CheckExact(buf) ? PyBytes_GET_SIZE(buf) : -1;
        if (size >= width && size <= max_size) {
            const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(buf);
            long v = width == 2 ? (long)(b[0] << 8 | b[1]) : (long)be32(b);
            PyObject *key = PyLong_FromLong(v);
            if (!key) { Py_DECREF(out); return NULL; }
            PyObject *fn = PyDict_GetItemWithError(table, key);  /* borrowed */
            Py_DECREF(key);
            if (fn) {
                Py_INCREF(fn);
                r = PyObject_Vectorcall(fn, &buf, 1, NULL);
                Py_DECREF(fn);
                if (!r) { Py_DECREF(out); return NULL; }
            } else if (PyErr_Occurred()) {
                Py_DECREF(out);
                return NULL;
            }
        }
        PyList_SET_ITEM(out, i, r ? r : Py_NewRef(Py_None));
    }
    return out;
}

/* --- fronts: a public function's native hot path, in one call ----------------------------------- */

/* front(fallback, table, active, nkey, suffix, prefix_max)(*args): while active[0] is True and the call is
   positional with nkey + 1 arguments, table[(*args[:nkey], *suffix)](args[nkey]) (the key alone when it is one
   argument and there is no suffix); with prefix_max > 0 the data must be bytes of 2 to prefix_max bytes, and the
   key ends with its first two bytes as an unsigned big-endian int (a version prefix). Anything else -- an absent
   key, an unhashable one, a None result (a miss), keyword arguments -- is fallback(*args, **kwargs), the Python
   function itself, which checks, reports and fills the table. What the Python function's first lines did with
   a dict lookup, without its frame: a small message's decode is mostly that frame. */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *fallback, *table, *active, *suffix, *dict;
    Py_ssize_t nkey, prefix_max;
} Front;

/* the table's key of a call, or NULL: an error, or (no exception) data a prefix key cannot be read from */
static PyObject *front_key(Front *f, PyObject *const *args) {
    Py_ssize_t ns = PyTuple_GET_SIZE(f->suffix), np = f->prefix_max > 0;
    PyObject *prefix = NULL;
    if (np) {
        PyObject *data = args[f->nkey];
        Py_ssize_t n = PyBytes_CheckExact(data) ? PyBytes_GET_SIZE(data) : 0;
        if (n < 2 || n > f->prefix_max) return NULL;
        const unsigned char *b = (const unsigned char *)PyBytes_AS_STRING(data);
        if (!(prefix = PyLong_FromLong((long)b[0] << 8 | b[1]))) return NULL;
    }
    if (f->nkey == 1 && ns == 0 && !np) return Py_NewRef(args[0]);
    PyObject *key = PyTuple_New(f->nkey + ns + np);
    if (!key) { Py_XDECREF(prefix); return NULL; }
    for (Py_ssize_t i = 0; i < f->nkey; i++) PyTuple_SET_ITEM(key, i, Py_NewRef(args[i]));
    for (Py_ssize_t i = 0; i < ns; i++) PyTuple_SET_ITEM(key, f->nkey + i, Py_NewRef(PyTuple_GET_ITEM(f->suffix, i)));
    if (np) PyTuple_SET_ITEM(key, f->nkey + ns, prefix);
    return key;
}

static PyObject *front_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Front *f = (Front *)self;
    if (!kwnames && PyVectorcall_NARGS(nargsf) == f->nkey + 1 && PyList_GET_SIZE(f->active) > 0 &&
        PyList_GET_ITEM(f->active, 0) == Py_True) {
        PyObject *key = front_key(f, args);
        PyObject *fn = key ? PyDict_GetItemWithError(f->table, key) : NULL;  /* borrowed */
        Py_XINCREF(fn);
        Py_XDECREF(key);
        PyObject *r = fn ? PyObject_Vectorcall(fn, args + f->nkey, 1, NULL) : NULL;
        Py_XDECREF(fn);
        if (r && r != Py_None) return r;
        Py_XDECREF(r);
        /* as the Python function's ``except (KeyError, TypeError)`` around its lookup and call */
        if (PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_KeyError) && !PyErr_ExceptionMatches(PyExc_TypeError)) return NULL;
            PyErr_Clear();
        }
    }
    return PyObject_Vectorcall(f->fallback, args, nargsf, kwnames);
}

static int front_traverse(Front *f, visitproc visit, void *arg) {
    Py_VISIT(f->fallback);
    Py_VISIT(f->table);
    Py_VISIT(f->active);
    Py_VISIT(f->suffix);
    Py_VISIT(f->dict);
    return 0;
}

static int front_clear(Front *f) {
    Py_CLEAR(f->fallback);
    Py_CLEAR(f->table);
    Py_CLEAR(f->active);
    Py_CLEAR(f->suffix);
    Py_CLEAR(f->dict);
    return 0;
}

static void front_dealloc(Front *f) {
    PyObject_GC_UnTrack(f);
    front_clear(f);
    Py_TYPE(f)->tp_free((PyObject *)f);
}

static PyObject *front_reduce(PyObject *self, PyObject *unused) {
    /* pickled by name, as a function is (functools.update_wrapper gave it the function's names) */
    return PyObject_GetAttrString(self, "__qualname__");
}

static PyObject *front_repr(Front *f) {
    return PyUnicode_FromFormat("<native front of %R>", f->fallback);
}

static PyMethodDef front_methods[] = {
    {"__reduce__", front_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef front_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject FrontType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "codec.wire._native.Front",
    .tp_basicsize = sizeof(Front),
    .tp_dealloc = (destructor)front_dealloc,
    .tp_vectorcall_offset = offsetof(Front, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_repr = (reprfunc)front_repr,
    .tp_getattro = PyObject_GenericGetAttr,
    .tp_setattro = PyObject_GenericSetAttr,
    .tp_dictoffset = offsetof(Front, dict),
    .tp_traverse = (traverseproc)front_traverse,
    .tp_clear = (inquiry)front_clear,
    .tp_methods = front_methods,
    .tp_getset = front_getset,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A public function's native hot path (codec.wire.native.front).",
};

static PyObject *native_front(PyObject *self, PyObject *args) {
    PyObject *fallback, *table, *active, *suffix;
    Py_ssize_t nkey, prefix_max;
    if (!PyArg_ParseTuple(args, "OO!O!nO!n", &fallback, &PyDict_Type, &table, &PyList_Type, &active, &nkey,
                          &PyTuple_Type, &suffix, &prefix_max))
        return NULL;
    if (nkey < 1 || nkey > 4 || !PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_ValueError, "front(callable, dict, list, 1 <= nkey <= 4, tuple, prefix_max)");
        return NULL;
    }
    Front *f = PyObject_GC_New(Front, &FrontType);
    if (!f) return NULL;
    f->vectorcall = front_vectorcall;
    f->fallback = Py_NewRef(fallback);
    f->table = Py_NewRef(table);
    f->active = Py_NewRef(active);
    f->suffix = Py_NewRef(suffix);
    f->dict = NULL;
    f->nkey = nkey;
    f->prefix_max = prefix_max;
    PyObject_GC_Track(f);
    return (PyObject *)f;
}

/* --- makers: positional constructors of slotted classes ------------------------------------------ */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyTypeObject *type;
    int n;
    Py_ssize_t offs[MAXSLOTS];
} Maker;

static PyObject *maker_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Maker *m = (Maker *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames || nargs != m->n) {
        PyErr_Format(PyExc_TypeError, "%s() takes exactly %d positional arguments", m->type->tp_name, m->n);
        return NULL;
    }
    PyObject *o = m->type->tp_alloc(m->type, 0);
    if (!o) return NULL;
    for (int i = 0; i < m->n; i++) {
        Py_INCREF(args[i]);
        SLOT(o, m->offs[i]) = args[i];
    }
    return o;
}

static void maker_dealloc(Maker *m) {
    Py_XDECREF(m->type);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyTypeObject MakerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "codec.wire._native.Maker",
    .tp_basicsize = sizeof(Maker),
    .tp_dealloc = (destructor)maker_dealloc,
    .tp_vectorcall_offset = offsetof(Maker, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A positional constructor that fills every slot of a class directly (codec.wire.native.maker).",
};

static PyObject *native_maker(PyObject *self, PyObject *args) {
    PyObject *type, *offs;
    if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &type, &PyTuple_Type, &offs)) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(offs);
    if (n > MAXSLOTS) { PyErr_SetString(PyExc_ValueError, "too many slots"); return NULL; }
    Maker *m = PyObject_New(Maker, &MakerType);
    if (!m) return NULL;
    m->vectorcall = maker_vectorcall;
    Py_INCREF(type);
    m->type = (PyTypeObject *)type;
    m->n = (int)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        m->offs[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(offs, i));
        if (m->offs[i] < (Py_ssize_t)sizeof(PyObject) || m->offs[i] >= ((PyTypeObject *)type)->tp_basicsize) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "slot offset outside the instance");
            Py_DECREF(m);
            return NULL;
        }
    }
    return (PyObject *)m;
}

/* --- module --------------------------------------------------------------------------------------- */

static PyMethodDef prog_methods[] = {
    {"decode", (PyCFunction)(void (*)(void))prog_decode, METH_FASTCALL,
     "decode(buf, pos=0) -> (value, end), or None when the reference path must decide"},
    {"encode", (PyCFunction)(void (*)(void))prog_encode, METH_FASTCALL,
     "encode(value, *extra) -> bytes, or None when the reference path must decide"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject StructProgType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "codec.wire._native.StructProgram",
    .tp_basicsize = sizeof(StructProg),
    .tp_dealloc = (destructor)StructProg_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One struct of one message version, compiled from the schema tables (codec.wire.native).",
    .tp_methods = prog_methods,
};

static PyObject *native_slot_offset(PyObject *self, PyObject *descr) {
    if (!PyObject_TypeCheck(descr, &PyMemberDescr_Type)) {
        PyErr_SetString(PyExc_TypeError, "a member descriptor (a __slots__ entry)");
        return NULL;
    }
    PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
    if (m->type != T_OBJECT_EX || (m->flags & READONLY)) {
        PyErr_SetString(PyExc_TypeError, "not a writable object slot");
        return NULL;
    }
    return PyLong_FromSsize_t(m->offset);
}

static PyObject *native_configure(PyObject *self, PyObject *args) {
    PyObject *ut, *unknown;
    Py_ssize_t ioff, soff;
    if (!PyArg_ParseTuple(args, "O!nnO", &PyType_Type, &ut, &ioff, &soff, &unknown)) return NULL;
    Py_INCREF(ut); Py_XSETREF(UUID_T, (PyTypeObject *)ut);
    UUID_INT_OFF = ioff;
    UUID_SAFE_OFF = soff;
    Py_INCREF(unknown); Py_XSETREF(UUID_SAFE_UNKNOWN, unknown);
    Py_RETURN_NONE;
}

static PyObject *native_mutf8_decode(PyObject *self, PyObject *raw) {
    if (!PyBytes_Check(raw)) { PyErr_SetString(PyExc_TypeError, "bytes"); return NULL; }
    PyObject *s = mutf8_decode((const unsigned char *)PyBytes_AS_STRING(raw), PyBytes_GET_SIZE(raw));
    if (!s && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "malformed modified UTF-8");
    return s;
}

static PyObject *native_java_utf8_decode(PyObject *self, PyObject *raw) {
    if (!PyBytes_Check(raw)) return PyErr_Format(PyExc_TypeError, "java_utf8_decode needs bytes");
    return java_utf8_decode((const unsigned char *)PyBytes_AS_STRING(raw), PyBytes_GET_SIZE(raw));
}

static PyObject *native_mutf8_encode(PyObject *self, PyObject *s) {
    if (!PyUnicode_Check(s)) { PyErr_SetString(PyExc_TypeError, "str"); return NULL; }
    return mutf8_encode(s);
}

static PyMethodDef module_methods[] = {
    {"struct", native_struct, METH_O, "struct(spec) -> a struct program (see codec/wire/native.py)"},
    {"slot_offset", native_slot_offset, METH_O, "slot_offset(member_descriptor) -> the slot's offset"},
    {"maker", native_maker, METH_VARARGS, "maker(cls, offsets) -> a positional constructor filling those slots"},
    {"bound", native_bound, METH_VARARGS,
     "bound(program, make or None, prefix, start, trailing_bytes) -> a one-call decoder of a whole buffer"},
    {"each", native_each, METH_VARARGS,
     "each(table, buffers, width, max_size) -> [table[version](buffer) or None, ...] (native.each)"},
    {"front", native_front, METH_VARARGS,
     "front(fallback, table, active, nkey, suffix, prefix_max) -> a public function's hot path (native.front)"},
    {"tuple_hash", native_tuple_hash, METH_O, "tuple_hash(t) -> the engine's hash(t), to check it is CPython's"},
    {"configure", native_configure, METH_VARARGS, "configure(UUID, int_offset, is_safe_offset, SafeUUID.unknown)"},
    {"mutf8_decode", native_mutf8_decode, METH_O, "the engine's modified UTF-8 decoder (tests compare it)"},
    {"mutf8_encode", native_mutf8_encode, METH_O, "the engine's modified UTF-8 encoder (tests compare it)"},
    {"java_utf8_decode", native_java_utf8_decode, METH_O, "the engine's Java UTF-8 decoder (tests compare it)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "_native",
    "The native codec's engine: programs compiled from the schema tables (codec/wire/native.py) run here.",
    -1, module_methods,
};

PyMODINIT_FUNC PyInit__native(void) {
    if (PyType_Ready(&StructProgType) < 0 || PyType_Ready(&MakerType) < 0 || PyType_Ready(&BoundType) < 0 ||
        PyType_Ready(&FrontType) < 0) return NULL;
    PyObject *m = PyModule_Create(&native_module);
    if (!m) return NULL;
    Py_INCREF(&StructProgType);
    if (PyModule_AddObject(m, "StructProgram", (PyObject *)&StructProgType) < 0) {
        Py_DECREF(&StructProgType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
