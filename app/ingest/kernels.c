/* The ingest kernels in C: passes over every pod of a snapshot, each done in one C pass.
 *
 * Optional (setup.py marks the extension so): app/ingest/kernels.py holds the same
 * functions in Python (read_pods': app/ingest/fastjson.py, read_pods_py) and uses these
 * only when the extension was built. Each function here answers exactly as its Python
 * twin (tests/test_kernels.py compares them) or, for an input it was not written for,
 * returns None and the twin answers instead. The inputs are Python objects the readers
 * made (lists, str, typed records, msgspec.Raw texts, orjson's dicts) or, for read_pods,
 * read_pod_columns and kube_objects, the request's own JSON text; all their contents come
 * from the request, so no pass may read out of bounds or be made slower than linear by
 * them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

/* -- record_columns ------------------------------------------------------------------- */

/* The offset of cls's object slot name (a member descriptor of cls's own layout), or -1. */
static Py_ssize_t object_slot(PyObject *cls, PyObject *name) {
    if (!PyUnicode_CheckExact(name)) return -1; /* so the lookup runs no Python code */
    PyObject *d = _PyType_Lookup((PyTypeObject *)cls, name); /* borrowed */
    if (d == NULL || !Py_IS_TYPE(d, &PyMemberDescr_Type)) return -1;
    PyMemberDescrObject *md = (PyMemberDescrObject *)d;
    if (!PyType_IsSubtype((PyTypeObject *)cls, PyDescr_TYPE(md))) return -1; /* a slot of another layout */
    PyMemberDef *m = md->d_member;
    if (m->type != T_OBJECT_EX && m->type != T_OBJECT) return -1;
    return m->offset;
}

/* record_columns(items, cls, names): for each name, the list of that attribute of every
 * item. Only for a list of instances of exactly cls whose attributes are slots
 * (member descriptors); None otherwise. */
static PyObject *record_columns(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *items, *cls, *names;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyList_Type, &items, &PyType_Type, &cls, &PyTuple_Type, &names))
        return NULL;
    if (Py_TYPE(items)->tp_iter != PyList_Type.tp_iter) Py_RETURN_NONE; /* the twin iterates */
    Py_ssize_t k = PyTuple_GET_SIZE(names);
    enum { MAX_FIELDS = 64 };
    Py_ssize_t offset[MAX_FIELDS];
    if (k > MAX_FIELDS) Py_RETURN_NONE;
    for (Py_ssize_t j = 0; j < k; j++) {
        offset[j] = object_slot(cls, PyTuple_GET_ITEM(names, j));
        if (offset[j] < 0) Py_RETURN_NONE;
    }
    Py_ssize_t n = PyList_GET_SIZE(items);
    for (Py_ssize_t i = 0; i < n; i++)
        if (Py_TYPE(PyList_GET_ITEM(items, i)) != (PyTypeObject *)cls) Py_RETURN_NONE;
    PyObject *out = PyList_New(k);
    if (out == NULL) return NULL;
    for (Py_ssize_t j = 0; j < k; j++) {
        PyObject *col = PyList_New(n);
        if (col == NULL) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, j, col);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyList_GET_ITEM(items, i);
        for (Py_ssize_t j = 0; j < k; j++) {
            PyObject *v = *(PyObject **)((char *)o + offset[j]);
            if (v == NULL) { Py_DECREF(out); Py_RETURN_NONE; } /* an unset slot: the twin raises */
            Py_INCREF(v);
            PyList_SET_ITEM(PyList_GET_ITEM(out, j), i, v);
        }
    }
    return out;
}

/* -- int_column ----------------------------------------------------------------------- */

/* int_column(items, cls, name): the slot name of every item (instances of exactly cls) as
 * native int64s in a bytearray (8 bytes an item). None for anything else: an item of another
 * type, a value that is not an exact int within int64 (None included). */
static PyObject *int_column(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *items, *cls, *name;
    if (!PyArg_ParseTuple(args, "O!O!O", &PyList_Type, &items, &PyType_Type, &cls, &name)) return NULL;
    if (!PyList_CheckExact(items)) Py_RETURN_NONE;
    Py_ssize_t offset = object_slot(cls, name);
    if (offset < 0) Py_RETURN_NONE;
    Py_ssize_t n = PyList_GET_SIZE(items);
    if (n > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(int64_t)) Py_RETURN_NONE;
    PyObject *out = PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    if (out == NULL) return NULL;
    int64_t *vals = (int64_t *)PyByteArray_AS_STRING(out);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyList_GET_ITEM(items, i);
        if (Py_TYPE(o) != (PyTypeObject *)cls) { Py_DECREF(out); Py_RETURN_NONE; }
        PyObject *v = *(PyObject **)((char *)o + offset);
        if (v == NULL || !PyLong_CheckExact(v)) { Py_DECREF(out); Py_RETURN_NONE; }
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (x == -1 && PyErr_Occurred())) { PyErr_Clear(); Py_DECREF(out); Py_RETURN_NONE; }
        vals[i] = (int64_t)x;
    }
    return out;
}

/* -- int_and_ordinals ------------------------------------------------------------------- */

enum { MAX_DISTINCT = 64 };

/* int_and_ordinals(items, cls, int_name, str_name): in one pass over items (instances of
 * exactly cls), the int slot int_name of each as int64 bytes (None where one is not an
 * int within int64), and the str slot str_name of each as the int32 ordinal of its value
 * among the distinct values, first-seen order, with that list (None, None where one is
 * not a str or there are more than MAX_DISTINCT values); None where an item is of
 * another type or a name is not a slot. */
static PyObject *int_and_ordinals(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *items, *cls, *iname, *sname;
    if (!PyArg_ParseTuple(args, "O!O!OO", &PyList_Type, &items, &PyType_Type, &cls, &iname, &sname)) return NULL;
    if (!PyList_CheckExact(items)) Py_RETURN_NONE;
    Py_ssize_t ioff = object_slot(cls, iname), soff = object_slot(cls, sname);
    if (ioff < 0 || soff < 0) Py_RETURN_NONE;
    Py_ssize_t n = PyList_GET_SIZE(items);
    if (n > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(int64_t)) Py_RETURN_NONE;
    PyObject *ints = PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    PyObject *ords = PyByteArray_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int32_t));
    PyObject *distinct = PyList_New(0);
    PyObject *out = NULL;
    if (ints == NULL || ords == NULL || distinct == NULL) goto done;
    int64_t *vals = (int64_t *)PyByteArray_AS_STRING(ints);
    int32_t *ks = (int32_t *)PyByteArray_AS_STRING(ords);
    int ints_ok = 1, ords_ok = 1;
    PyObject *last = NULL; /* the str met last, and its ordinal */
    int32_t last_k = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyList_GET_ITEM(items, i);
        if (Py_TYPE(o) != (PyTypeObject *)cls) {
            out = Py_None;
            Py_INCREF(out);
            goto done;
        }
        if (ints_ok) {
            PyObject *v = *(PyObject **)((char *)o + ioff);
            int overflow = 0;
            long long x = v != NULL && PyLong_CheckExact(v) ? PyLong_AsLongLongAndOverflow(v, &overflow) : 0;
            if (v == NULL || !PyLong_CheckExact(v) || overflow || (x == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                ints_ok = 0;
            } else {
                vals[i] = (int64_t)x;
            }
        }
        if (ords_ok) {
            PyObject *s = *(PyObject **)((char *)o + soff);
            if (s == NULL || !PyUnicode_CheckExact(s)) {
                ords_ok = 0;
                continue;
            }
            if (s != last) {
                Py_ssize_t m = PyList_GET_SIZE(distinct), k = 0;
                while (k < m && PyList_GET_ITEM(distinct, k) != s && PyUnicode_Compare(PyList_GET_ITEM(distinct, k), s) != 0)
                    k++; /* (two str: no error) */
                if (k == m) {
                    if (m == MAX_DISTINCT) {
                        ords_ok = 0;
                        continue;
                    }
                    if (PyList_Append(distinct, s) < 0) goto done;
                }
                last = s;
                last_k = (int32_t)k;
            }
            ks[i] = last_k;
        }
    }
    if (ints_ok) {
        out = PyTuple_Pack(3, ints, ords_ok ? ords : Py_None, ords_ok ? distinct : Py_None);
    } else {
        out = PyTuple_Pack(3, Py_None, ords_ok ? ords : Py_None, ords_ok ? distinct : Py_None);
    }
done:
    Py_XDECREF(ints);
    Py_XDECREF(ords);
    Py_XDECREF(distinct);
    return out;
}

/* -- tables of objects by content ---------------------------------------------------- */

/* Content p[0:n] (which outlives the table), its hash, the object made for it and its
 * ordinal (the order contents were first met). */
typedef struct { const char *p; Py_ssize_t n; Py_hash_t h; PyObject *o; Py_ssize_t k; } Slot;
typedef struct { Slot *slots; Py_ssize_t cap, used, last; } Table; /* last: the slot found last, or -1 */
typedef PyObject *(*Make)(const char *p, Py_ssize_t n);

enum { MAX_PROBES = 64 }; /* a longer probe means colliding contents: decline, the twin answers */

static int table_init(Table *t) {
    t->cap = 64;
    t->used = 0;
    t->last = -1;
    t->slots = PyMem_Calloc((size_t)t->cap, sizeof(Slot));
    if (t->slots == NULL) { PyErr_NoMemory(); return -1; }
    return 0;
}

static void table_free(Table *t) {
    if (t->slots == NULL) return;
    for (Py_ssize_t m = 0; m < t->cap; m++) Py_XDECREF(t->slots[m].o);
    PyMem_Free(t->slots);
    t->slots = NULL;
}

/* A fast hash of p[0:n], eight bytes a step, seeded with the process's hash secret. */
static Py_hash_t quick_hash(const char *p, Py_ssize_t n) {
    uint64_t h = _Py_HashSecret.siphash.k0 ^ ((uint64_t)n * 0x9E3779B97F4A7C15ULL), w;
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, p, (size_t)n);
    h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33; /* a full finalizer: a multiply carries differences only upwards, and the */
    h *= 0xC4CEB9FE1A85EC53ULL; /* table indexes by the low bits */
    h ^= h >> 33;
    return (Py_hash_t)h;
}

/* The slot of content p[0:n], its object made by make when the content is new. Probes are
 * bounded, so contents crafted to collide cannot make a pass slower than linear: past the
 * bound the kernel declines and the twin answers. NULL with an exception on an error,
 * NULL without one to decline. The slot is valid until the next call. */
static Slot *table_get(Table *t, const char *p, Py_ssize_t n, Make make) {
    if (t->last >= 0) { /* a run of equal contents (pods of one namespace, one gang, ...): no hash */
        Slot *s = &t->slots[t->last];
        if (s->n == n && memcmp(s->p, p, (size_t)n) == 0) return s;
    }
    Py_hash_t h = quick_hash(p, n);
    Py_ssize_t j = (Py_ssize_t)((size_t)h & (size_t)(t->cap - 1)), probes = 0;
    while (t->slots[j].o != NULL) {
        Slot *s = &t->slots[j];
        if (s->h == h && s->n == n && memcmp(s->p, p, (size_t)n) == 0) { t->last = j; return s; }
        if (++probes > MAX_PROBES) return NULL;
        j = (j + 1) & (t->cap - 1);
    }
    PyObject *o = make(p, n);
    if (o == NULL) return NULL;
    t->slots[j] = (Slot){p, n, h, o, t->used};
    if (++t->used * 2 > t->cap) {
        Py_ssize_t bigger = t->cap * 2;
        Slot *grown = PyMem_Calloc((size_t)bigger, sizeof(Slot));
        if (grown == NULL) { PyErr_NoMemory(); return NULL; } /* o stays in the old table, freed with it */
        Py_ssize_t at = 0;
        for (Py_ssize_t m = 0; m < t->cap; m++) {
            if (t->slots[m].o == NULL) continue;
            Py_ssize_t q = (Py_ssize_t)((size_t)t->slots[m].h & (size_t)(bigger - 1));
            while (grown[q].o != NULL) q = (q + 1) & (bigger - 1);
            grown[q] = t->slots[m];
            if (m == j) at = q;
        }
        PyMem_Free(t->slots);
        t->slots = grown;
        t->cap = bigger;
        j = at;
    }
    t->last = j;
    return &t->slots[j];
}

static PyObject *make_bytes(const char *p, Py_ssize_t n) { return PyBytes_FromStringAndSize(p, n); }

/* -- shared_bytes --------------------------------------------------------------------- */

static PyObject *str_dunder_bytes; /* "__bytes__", interned at import */

/* The buffer of item, for an item bytes(item) reads through the buffer protocol (not a
 * bytes object, which bytes() returns as it is, nor a type with __bytes__); 0 to decline. */
static int plain_buffer(PyObject *item, Py_buffer *view) {
    if (PyBytes_Check(item) || !PyObject_CheckBuffer(item) || _PyType_Lookup(Py_TYPE(item), str_dunder_bytes) != NULL)
        return 0;
    if (PyObject_GetBuffer(item, view, PyBUF_SIMPLE) < 0) { PyErr_Clear(); return 0; }
    return 1;
}

/* untrack_json(tree): the dicts and lists of a parsed JSON tree (exact types, as orjson
   makes them) taken off the cyclic GC's lists; returns how many. A parsed snapshot is
   acyclic and lives long: reference counting frees it, so the collector need not walk it.
   Only tracked containers are entered, and each is untracked before its items are pushed,
   so a container is visited once (a cycle, which JSON cannot make, would end there too); an
   untracked dict never holds a list or dict (CPython tracks it when one is put in). */
static PyObject *untrack_json(PyObject *self, PyObject *root) {
    Py_ssize_t cap = 64, n = 0, count = 0;
    PyObject **stack = PyMem_Malloc((size_t)cap * sizeof(PyObject *));
    if (stack == NULL) return PyErr_NoMemory();
    stack[n++] = root;
    while (n > 0) {
        PyObject *o = stack[--n];
        int is_dict = PyDict_CheckExact(o);
        if ((!is_dict && !PyList_CheckExact(o)) || !PyObject_GC_IsTracked(o)) continue;
        PyObject_GC_UnTrack(o);
        count++;
        Py_ssize_t pos = 0, i = 0, len = is_dict ? 0 : PyList_GET_SIZE(o);
        PyObject *k, *v;
        while (is_dict ? PyDict_Next(o, &pos, &k, &v) : (i < len && (v = PyList_GET_ITEM(o, i++)) != NULL)) {
            if (!PyDict_CheckExact(v) && !PyList_CheckExact(v)) continue;
            if (n == cap) {
                PyObject **grown = PyMem_Realloc(stack, (size_t)(cap *= 2) * sizeof(PyObject *));
                if (grown == NULL) { PyMem_Free(stack); return PyErr_NoMemory(); }
                stack = grown;
            }
            stack[n++] = v;
        }
    }
    PyMem_Free(stack);
    return PyLong_FromSsize_t(count);
}

/* shared_bytes(buffers): bytes(b) for each of buffers (a list of objects with the buffer
 * protocol), one bytes object for all equal contents (see table_get). */
static PyObject *shared_bytes(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyList_CheckExact(arg)) Py_RETURN_NONE;
    PyObject *items = PyList_AsTuple(arg); /* a buffer export may run Python code that changes the list */
    if (items == NULL) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(items), held = 0;
    Py_buffer *views = PyMem_Calloc((size_t)(n ? n : 1), sizeof(Py_buffer));
    Table table = {NULL, 0, 0, -1};
    PyObject *out = PyList_New(n), *result = NULL;
    if (views == NULL || out == NULL) { if (out != NULL) PyErr_NoMemory(); goto done; }
    if (table_init(&table) < 0) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        int got = plain_buffer(PyTuple_GET_ITEM(items, i), &views[i]);
        if (got == 0) goto done; /* declined */
        held = i + 1; /* the views are held until the end: the table points into them */
        Slot *s = table_get(&table, views[i].buf, views[i].len, make_bytes);
        if (s == NULL) goto done;
        Py_INCREF(s->o);
        PyList_SET_ITEM(out, i, s->o);
    }
    result = out;
    out = NULL;
done:
    table_free(&table);
    for (Py_ssize_t i = 0; i < held; i++) PyBuffer_Release(&views[i]);
    PyMem_Free(views);
    Py_XDECREF(out); /* a list with unset (NULL) items is freed safely */
    Py_DECREF(items);
    if (result == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
    return result;
}

/* -- index_rows ----------------------------------------------------------------------- */

/* s is the ASCII text lit (len bytes long). */
static int eq_ascii(PyObject *s, const char *lit, Py_ssize_t len) {
    return PyUnicode_GET_LENGTH(s) == len && PyUnicode_KIND(s) == PyUnicode_1BYTE_KIND &&
           memcmp(PyUnicode_1BYTE_DATA(s), lit, (size_t)len) == 0;
}

/* a + "/" + b, both exact str. */
static PyObject *join_key(PyObject *a, PyObject *b) {
    if (PyUnicode_IS_ASCII(a) && PyUnicode_IS_ASCII(b)) {
        Py_ssize_t la = PyUnicode_GET_LENGTH(a), lb = PyUnicode_GET_LENGTH(b);
        PyObject *s = PyUnicode_New(la + 1 + lb, 127);
        if (s == NULL) return NULL;
        Py_UCS1 *p = PyUnicode_1BYTE_DATA(s);
        memcpy(p, PyUnicode_1BYTE_DATA(a), (size_t)la);
        p[la] = '/';
        memcpy(p + la + 1, PyUnicode_1BYTE_DATA(b), (size_t)lb);
        return s;
    }
    return PyUnicode_FromFormat("%U/%U", a, b);
}

static int append_new(PyObject *list, PyObject *item) { /* steals item */
    if (item == NULL) return -1;
    int rc = PyList_Append(list, item);
    Py_DECREF(item);
    return rc;
}

/* index_rows(namespace, name, node, phase, group, queue, nodes, running, bound, default_queue):
 * see kernels.index_rows (the Python twin) for what it answers. */
static PyObject *index_rows(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *cols[6], *nodes, *running, *bound, *default_queue;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!O!OOO", &PyList_Type, &cols[0], &PyList_Type, &cols[1],
                          &PyList_Type, &cols[2], &PyList_Type, &cols[3], &PyList_Type, &cols[4],
                          &PyList_Type, &cols[5], &PyDict_Type, &nodes, &running, &bound, &default_queue))
        return NULL;
    if (!PyDict_CheckExact(nodes)) Py_RETURN_NONE; /* the twin calls nodes.get */
    for (int c = 0; c < 6; c++)
        if (!PyList_CheckExact(cols[c])) Py_RETURN_NONE;
    Py_ssize_t n = PyList_GET_SIZE(cols[0]);
    for (int c = 1; c < 6; c++)
        if (PyList_GET_SIZE(cols[c]) != n) Py_RETURN_NONE;
    for (int c = 0; c < 6; c++)
        for (Py_ssize_t i = 0; i < n; i++)
            if (!PyUnicode_CheckExact(PyList_GET_ITEM(cols[c], i))) Py_RETURN_NONE;
    PyObject *minus_one = PyLong_FromLong(-1);
    PyObject *keys = PyList_New(n), *node_idx = PyList_New(n);
    PyObject *live = PyList_New(0), *other = PyList_New(0), *live_keys = PyList_New(0);
    PyObject *live_nodes = PyList_New(0), *live_status = PyList_New(0), *live_queues = PyList_New(0);
    PyObject *out = NULL;
    if (!minus_one || !keys || !node_idx || !live || !other || !live_keys || !live_nodes || !live_status || !live_queues)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *ns = PyList_GET_ITEM(cols[0], i), *name = PyList_GET_ITEM(cols[1], i);
        PyObject *node = PyList_GET_ITEM(cols[2], i), *phase = PyList_GET_ITEM(cols[3], i);
        PyObject *group = PyList_GET_ITEM(cols[4], i), *queue = PyList_GET_ITEM(cols[5], i);
        PyObject *key = join_key(ns, name);
        if (key == NULL) goto done;
        PyList_SET_ITEM(keys, i, key);
        PyObject *idx = minus_one;
        if (PyUnicode_GET_LENGTH(node) > 0) {
            idx = PyDict_GetItemWithError(nodes, node); /* borrowed */
            if (idx == NULL || !PyLong_CheckExact(idx)) {
                if (idx == NULL && PyErr_Occurred()) goto done;
                Py_INCREF(Py_None); /* a node not in ``nodes`` (or not an int): the twin answers */
                out = Py_None;
                goto done;
            }
        }
        Py_INCREF(idx);
        PyList_SET_ITEM(node_idx, i, idx);
        int overflow = 0;
        long at = PyLong_AsLongAndOverflow(idx, &overflow);
        if (overflow != 0) { Py_INCREF(Py_None); out = Py_None; goto done; } /* beyond a C long: the twin answers */
        if (at == -1 && PyErr_Occurred()) goto done;
        int is_running = eq_ascii(phase, "Running", 7);
        int is_live = PyUnicode_GET_LENGTH(group) == 0 && at >= 0 && (is_running || eq_ascii(phase, "Pending", 7));
        PyObject *row = PyLong_FromSsize_t(i);
        if (row == NULL) goto done;
        if (!is_live) {
            if (append_new(other, row) < 0) goto done;
            continue;
        }
        if (append_new(live, row) < 0 || PyList_Append(live_keys, key) < 0 || PyList_Append(live_nodes, idx) < 0 ||
            PyList_Append(live_status, is_running ? running : bound) < 0 ||
            PyList_Append(live_queues, PyUnicode_GET_LENGTH(queue) ? queue : default_queue) < 0)
            goto done;
    }
    out = PyTuple_Pack(8, keys, node_idx, live, other, live_keys, live_nodes, live_status, live_queues);
done:
    /* lists whose items were not all set yet hold NULLs, which list deallocation skips */
    Py_XDECREF(minus_one);
    Py_XDECREF(keys);
    Py_XDECREF(node_idx);
    Py_XDECREF(live);
    Py_XDECREF(other);
    Py_XDECREF(live_keys);
    Py_XDECREF(live_nodes);
    Py_XDECREF(live_status);
    Py_XDECREF(live_queues);
    return out;
}

/* -- read_pods ------------------------------------------------------------------------ */

/* A cursor over JSON text that msgspec has already read as valid JSON (the skipped value
 * of a section), its UTF-8 checked: the reader only has to recognise the common shape
 * and decline anything else. */
typedef struct { const char *p, *e; } Cur;

static void skip_ws(Cur *c) {
    while (c->p < c->e && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t')) c->p++;
}

static int take(Cur *c, char ch) {
    skip_ws(c);
    if (c->p < c->e && *c->p == ch) { c->p++; return 1; }
    return 0;
}

static int take_word(Cur *c, const char *w, Py_ssize_t n) {
    skip_ws(c);
    if (c->e - c->p >= n && memcmp(c->p, w, (size_t)n) == 0) { c->p += n; return 1; }
    return 0;
}

/* A string without escapes: its content; 0 to decline (no string, or an escape). */
static int take_plain_string(Cur *c, const char **s, Py_ssize_t *n) {
    skip_ws(c);
    if (c->p >= c->e || *c->p != '"') return 0;
    const char *start = c->p + 1, *q = start;
    for (;; q++) { /* strings here are short: a plain loop beats a memchr call */
        if (q >= c->e) return 0;
        unsigned char ch = (unsigned char)*q;
        if (ch == '"') break;
        if (ch < 0x20 || ch == '\\') return 0; /* an escape: declined */
    }
    *s = start;
    *n = q - start;
    c->p = q + 1;
    return 1;
}

/* A JSON integer within int64 (what PodRecord's Int64 accepts); 0 to decline. */
static int take_int64(Cur *c, long long *v) {
    skip_ws(c);
    const char *q = c->p;
    int neg = 0;
    if (q < c->e && *q == '-') { neg = 1; q++; }
    if (q >= c->e || *q < '0' || *q > '9') return 0;
    if (*q == '0' && q + 1 < c->e && q[1] >= '0' && q[1] <= '9') return 0;
    unsigned long long acc = 0;
    int digits = 0;
    while (q < c->e && *q >= '0' && *q <= '9') {
        if (++digits > 19) return 0;
        acc = acc * 10 + (unsigned)(*q - '0');
        q++;
    }
    if (q < c->e && (*q == '.' || *q == 'e' || *q == 'E')) return 0;
    if (neg ? acc > 9223372036854775808ULL : acc > 9223372036854775807ULL) return 0;
    *v = neg ? (long long)(0 - acc) : (long long)acc;
    c->p = q;
    return 1;
}

static PyObject *make_str(const char *p, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        if ((unsigned char)p[i] >= 0x80) {
            PyObject *o = PyUnicode_DecodeUTF8(p, n, "strict");
            if (o == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) PyErr_Clear(); /* declined */
            return o;
        }
    PyObject *o = PyUnicode_New(n, 127);
    if (o != NULL) memcpy(PyUnicode_1BYTE_DATA(o), p, (size_t)n);
    return o;
}

/* The columns, in fastjson's order (TABLE_COLUMNS), then the request text. */
enum { F_NS, F_NAME, F_UID, F_NODE, F_PHASE, F_PRIO, F_LABELS, F_GROUP, F_QUEUE, F_ROLE, F_PRE, F_CREATED, F_REQ, NF };
static const char *const FIELD[NF] = {"namespace", "name", "uid", "node", "phase", "priority", "labels", "group",
                                      "queue", "role", "preemptable", "createdAt", "requests"};
static const char *const PHASES[] = {"Pending", "Running", "Succeeded", "Failed", "Unknown"};

static Py_ssize_t FIELD_LEN[NF];

static int field_of(const char *k, Py_ssize_t n) {
    for (int f = 0; f < NF; f++)
        if (FIELD_LEN[f] == n && k[0] == FIELD[f][0] && memcmp(FIELD[f], k, (size_t)n) == 0) return f;
    return -1;
}

/* A shared object (str, int or bytes) by content, as a new reference; NULL with or without
 * an exception (see table_get). */
static PyObject *shared(Table *t, const char *p, Py_ssize_t n, Make make) {
    Slot *s = table_get(t, p, n, make);
    if (s == NULL) return NULL;
    Py_INCREF(s->o);
    return s->o;
}

static PyObject *make_int(const char *p, Py_ssize_t n) {
    long long v;
    Cur c = {p, p + n};
    if (!take_int64(&c, &v)) return NULL; /* cannot happen: p was read as an int64 */
    return PyLong_FromLongLong(v);
}

/* One value of field f at c: a new reference, or NULL (an exception, or none to decline).
 * Strings and integers are shared by content, one table per field; a request map's text
 * is shared as bytes and its ordinal stored in *ordinal. */
static PyObject *read_value(Cur *c, int f, Table *tables, Py_ssize_t *ordinal) {
    const char *s;
    Py_ssize_t n;
    long long iv;
    switch (f) {
    case F_NAME: case F_UID:
        return take_plain_string(c, &s, &n) ? make_str(s, n) : NULL;
    case F_NS: case F_NODE: case F_GROUP: case F_QUEUE: case F_ROLE:
        return take_plain_string(c, &s, &n) ? shared(&tables[f], s, n, make_str) : NULL;
    case F_PHASE:
        if (!take_plain_string(c, &s, &n)) return NULL;
        for (size_t i = 0; i < sizeof PHASES / sizeof *PHASES; i++)
            if ((Py_ssize_t)strlen(PHASES[i]) == n && memcmp(PHASES[i], s, (size_t)n) == 0) return shared(&tables[f], s, n, make_str);
        return NULL;
    case F_CREATED:
        if (take_word(c, "null", 4)) Py_RETURN_NONE;
        return take_plain_string(c, &s, &n) ? shared(&tables[f], s, n, make_str) : NULL;
    case F_PRIO: {
        if (take_word(c, "null", 4)) Py_RETURN_NONE;
        skip_ws(c);
        const char *start = c->p;
        return take_int64(c, &iv) ? shared(&tables[f], start, c->p - start, make_int) : NULL;
    }
    case F_PRE:
        if (take_word(c, "true", 4)) Py_RETURN_TRUE;
        if (take_word(c, "false", 5)) Py_RETURN_FALSE;
        if (take_word(c, "null", 4)) Py_RETURN_NONE;
        return NULL;
    case F_LABELS: {
        if (take_word(c, "null", 4)) Py_RETURN_NONE;
        if (!take(c, '{')) return NULL;
        PyObject *d = PyDict_New();
        if (d == NULL || take(c, '}')) return d;
        for (;;) {
            const char *k, *v;
            Py_ssize_t kn, vn;
            if (!take_plain_string(c, &k, &kn) || !take(c, ':') || !take_plain_string(c, &v, &vn)) break;
            PyObject *ko = shared(&tables[F_LABELS], k, kn, make_str);
            PyObject *vo = ko == NULL ? NULL : shared(&tables[F_LABELS], v, vn, make_str);
            Py_ssize_t before = PyDict_GET_SIZE(d);
            int rc = vo == NULL ? -1 : PyDict_SetItem(d, ko, vo);
            Py_XDECREF(ko);
            Py_XDECREF(vo);
            if (rc < 0 || PyDict_GET_SIZE(d) == before) break; /* an error, or a repeated key: declined */
            if (take(c, '}')) return d;
            if (!take(c, ',')) break;
        }
        Py_DECREF(d);
        return NULL;
    }
    case F_REQ: {
        skip_ws(c);
        const char *start = c->p;
        if (!take_word(c, "null", 4)) { /* else an object of plain-string keys to plain strings or integers */
            if (!take(c, '{')) return NULL;
            if (!take(c, '}'))
                for (;;) {
                    if (!take_plain_string(c, &s, &n) || !take(c, ':')) return NULL;
                    if (!take_plain_string(c, &s, &n) && !take_int64(c, &iv)) return NULL;
                    if (take(c, '}')) break;
                    if (!take(c, ',')) return NULL;
                }
        }
        Slot *t = table_get(&tables[F_REQ], start, c->p - start, make_bytes);
        if (t == NULL) return NULL;
        *ordinal = t->k;
        Py_RETURN_NONE; /* the text's object stays in the table; the caller keeps the ordinal */
    }
    }
    return NULL;
}

/* read_pods(text): the pods of a native section (a JSON array of pod objects in the
 * common shape) as columns, what reading them as PodRecords and taking their columns
 * gives: a tuple of the columns (fastjson.TABLE_COLUMNS), the distinct request texts
 * (b"" first, for no requests) and each pod's ordinal into them. None for anything else:
 * an escape in a string, a field of another type or shape, a repeated key, an unknown
 * field, a missing name. */
static PyObject *read_pods(PyObject *self, PyObject *arg) {
    (void)self;
    Py_buffer view;
    if (!PyBytes_CheckExact(arg) && !PyMemoryView_Check(arg)) Py_RETURN_NONE;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) { PyErr_Clear(); Py_RETURN_NONE; } /* e.g. a strided view */
    Cur c = {view.buf, (const char *)view.buf + view.len};
    Table tables[NF];
    PyObject *cols[NF] = {NULL}, *ordinals = NULL, *texts = NULL, *result = NULL;
    PyObject *dflt[NF] = {NULL};
    int ok = 1;
    for (int f = 0; f < NF; f++) tables[f].slots = NULL;
    for (int f = 0; f < NF; f++) {
        if (f != F_NAME && f != F_UID && table_init(&tables[f]) < 0) { ok = 0; break; } /* names are not shared */
        if (f != F_REQ && (cols[f] = PyList_New(0)) == NULL) { ok = 0; break; }
    }
    if (!ok || (ordinals = PyList_New(0)) == NULL) goto done;
    /* what an absent field reads as (PodRecord's defaults); no requests is the text b"" */
    Slot *none_text = table_get(&tables[F_REQ], "", 0, make_bytes);
    if (none_text == NULL) goto done;
    dflt[F_NS] = shared(&tables[F_NS], "default", 7, make_str);
    dflt[F_PHASE] = shared(&tables[F_PHASE], "Pending", 7, make_str);
    for (int f = 0; f < NF; f++) {
        if (f == F_UID || f == F_NODE || f == F_GROUP || f == F_QUEUE || f == F_ROLE) dflt[f] = PyUnicode_New(0, 0);
        else if (f == F_PRIO || f == F_LABELS || f == F_PRE || f == F_CREATED) { Py_INCREF(Py_None); dflt[f] = Py_None; }
        else continue;
        if (dflt[f] == NULL) goto done;
    }
    if (dflt[F_NS] == NULL || dflt[F_PHASE] == NULL) goto done;
    if (!take(&c, '[')) goto declined;
    if (!take(&c, ']'))
        for (;;) {
            if (!take(&c, '{')) goto declined;
            PyObject *v[NF] = {NULL};
            Py_ssize_t ordinal = 0;
            unsigned seen = 0;
            int bad = 0;
            if (!take(&c, '}'))
                for (;;) {
                    const char *k;
                    Py_ssize_t kn;
                    int f;
                    if (!take_plain_string(&c, &k, &kn) || !take(&c, ':') || (f = field_of(k, kn)) < 0 || (seen & (1u << f))) {
                        bad = 1;
                        break;
                    }
                    seen |= 1u << f;
                    v[f] = read_value(&c, f, tables, &ordinal);
                    if (v[f] == NULL) { bad = 1; break; }
                    if (take(&c, '}')) break;
                    if (!take(&c, ',')) { bad = 1; break; }
                }
            if (!bad && v[F_NAME] == NULL) bad = 1; /* name is required */
            for (int f = 0; f < NF && !bad; f++) {
                if (f == F_REQ) continue;
                PyObject *x = v[f] != NULL ? v[f] : dflt[f];
                if (PyList_Append(cols[f], x) < 0) bad = 1;
            }
            PyObject *o = bad ? NULL : PyLong_FromSsize_t(ordinal);
            if (o == NULL || PyList_Append(ordinals, o) < 0) bad = 1;
            Py_XDECREF(o);
            for (int f = 0; f < NF; f++) Py_XDECREF(v[f]);
            if (bad) goto declined;
            if (take(&c, ']')) break;
            if (!take(&c, ',')) goto declined;
        }
    skip_ws(&c);
    if (c.p != c.e) goto declined;
    texts = PyList_New(tables[F_REQ].used);
    if (texts == NULL) goto done;
    for (Py_ssize_t m = 0; m < tables[F_REQ].cap; m++) {
        Slot *s = &tables[F_REQ].slots[m];
        if (s->o == NULL) continue;
        Py_INCREF(s->o);
        PyList_SET_ITEM(texts, s->k, s->o);
    }
    PyObject *columns = PyTuple_New(NF - 1);
    if (columns == NULL) goto done;
    for (int f = 0; f < NF - 1; f++) { PyTuple_SET_ITEM(columns, f, cols[f]); cols[f] = NULL; }
    result = PyTuple_Pack(3, columns, texts, ordinals);
    Py_DECREF(columns);
    goto done;
declined:
    if (!PyErr_Occurred()) { Py_INCREF(Py_None); result = Py_None; }
done:
    for (int f = 0; f < NF; f++) {
        Py_XDECREF(cols[f]);
        Py_XDECREF(dflt[f]);
        table_free(&tables[f]);
    }
    Py_XDECREF(ordinals);
    Py_XDECREF(texts);
    PyBuffer_Release(&view);
    return result;
}

/* -- read_pod_columns ----------------------------------------------------------------- */

/* The podColumns section's JSON text (see app/ingest/columns.py) in its common shape:
 * what orjson.loads gives for it (the twin, fastjson.read_pod_columns_py), with equal
 * strings and numbers of a column shared (pod names and uids excepted). None for anything
 * else: a key that is not a column or comes twice, an escape in a string, a number that is
 * not an int64, an entry of another type than the column's; orjson then reads the text and
 * the column checks report what is wrong. */
enum { C_NAME, C_NS, C_UID, C_NODE, C_PHASE, C_PRIO, C_GROUP, C_ROLE, C_QUEUE, C_PRE, C_CREATED, C_REQ, NC };
static const char *const COLUMN[NC] = {"name", "namespace", "uid", "node", "phase", "priority", "group", "role",
                                       "queue", "preemptable", "createdAt", "requests"};

static int column_of(const char *k, Py_ssize_t n) {
    for (int f = 0; f < NC; f++)
        if ((Py_ssize_t)strlen(COLUMN[f]) == n && memcmp(COLUMN[f], k, (size_t)n) == 0) return f;
    return -1;
}

/* One entry of column f: a new reference, or NULL (an exception, or none to decline). */
static PyObject *column_entry(Cur *c, int f, Table *t) {
    const char *s;
    Py_ssize_t n;
    long long iv;
    switch (f) {
    case C_NAME: case C_UID:
        return take_plain_string(c, &s, &n) ? make_str(s, n) : NULL;
    case C_NS: case C_PHASE: case C_GROUP: case C_ROLE: case C_QUEUE:
        return take_plain_string(c, &s, &n) ? shared(t, s, n, make_str) : NULL;
    case C_CREATED:
        if (take_word(c, "null", 4)) Py_RETURN_NONE;
        return take_plain_string(c, &s, &n) ? shared(t, s, n, make_str) : NULL;
    case C_PRIO: case C_NODE: case C_REQ: {
        if (f == C_PRIO && take_word(c, "null", 4)) Py_RETURN_NONE;
        skip_ws(c);
        const char *start = c->p;
        return take_int64(c, &iv) ? shared(t, start, c->p - start, make_int) : NULL;
    }
    case C_PRE:
        if (take_word(c, "true", 4)) Py_RETURN_TRUE;
        if (take_word(c, "false", 5)) Py_RETURN_FALSE;
        if (take_word(c, "null", 4)) Py_RETURN_NONE;
        return NULL;
    }
    return NULL;
}

/* A JSON array of entries of column f, as a new list; NULL (an exception, or declined). */
static PyObject *column_array(Cur *c, int f, Table *t) {
    if (!take(c, '[')) return NULL;
    PyObject *list = PyList_New(0);
    if (list == NULL || take(c, ']')) return list;
    for (;;) {
        PyObject *v = column_entry(c, f, t);
        if (v == NULL || PyList_Append(list, v) < 0) { Py_XDECREF(v); break; }
        Py_DECREF(v);
        if (take(c, ']')) return list;
        if (!take(c, ',')) break;
    }
    Py_DECREF(list);
    return NULL;
}

static PyObject *read_pod_columns(PyObject *self, PyObject *arg) {
    (void)self;
    Py_buffer view;
    if (!PyBytes_CheckExact(arg) && !PyMemoryView_Check(arg)) Py_RETURN_NONE;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) { PyErr_Clear(); Py_RETURN_NONE; }
    Cur c = {view.buf, (const char *)view.buf + view.len};
    Table tables[NC], requests; /* the requests' numbers share one table */
    PyObject *out = PyDict_New(), *result = NULL;
    for (int f = 0; f < NC; f++) tables[f].slots = NULL;
    requests.slots = NULL;
    int ok = out != NULL && table_init(&requests) == 0;
    for (int f = 0; f < NC && ok; f++)
        if (f != C_NAME && f != C_UID && f != C_REQ && table_init(&tables[f]) < 0) ok = 0;
    if (!ok) goto done;
    if (!take(&c, '{')) goto declined;
    if (!take(&c, '}'))
        for (;;) {
            const char *k;
            Py_ssize_t kn;
            int f;
            if (!take_plain_string(&c, &k, &kn) || !take(&c, ':') || (f = column_of(k, kn)) < 0) goto declined;
            PyObject *key = make_str(k, kn), *v = NULL;
            if (key == NULL) goto declined;
            if (PyDict_GetItemWithError(out, key) != NULL || PyErr_Occurred()) { Py_DECREF(key); goto declined; } /* twice */
            skip_ws(&c);
            if (f == C_NS && c.p < c.e && *c.p == '"') { /* one namespace for every pod */
                const char *s;
                Py_ssize_t n;
                v = take_plain_string(&c, &s, &n) ? make_str(s, n) : NULL;
            } else if (f == C_REQ) { /* resource name -> an array of integers */
                if (take(&c, '{')) {
                    v = PyDict_New();
                    if (v != NULL && !take(&c, '}'))
                        for (;;) {
                            const char *r;
                            Py_ssize_t rn;
                            PyObject *rk = NULL, *rv = NULL;
                            int fine = take_plain_string(&c, &r, &rn) && take(&c, ':') && (rk = make_str(r, rn)) != NULL;
                            fine = fine && PyDict_GetItemWithError(v, rk) == NULL && !PyErr_Occurred();
                            fine = fine && (rv = column_array(&c, C_REQ, &requests)) != NULL && PyDict_SetItem(v, rk, rv) == 0;
                            Py_XDECREF(rk);
                            Py_XDECREF(rv);
                            if (fine && take(&c, '}')) break;
                            if (!fine || !take(&c, ',')) { Py_CLEAR(v); break; }
                        }
                }
            } else {
                v = column_array(&c, f, &tables[f]);
            }
            int rc = v == NULL ? -1 : PyDict_SetItem(out, key, v);
            Py_DECREF(key);
            Py_XDECREF(v);
            if (rc < 0) goto declined;
            if (take(&c, '}')) break;
            if (!take(&c, ',')) goto declined;
        }
    skip_ws(&c);
    if (c.p != c.e) goto declined;
    result = out;
    out = NULL;
    goto done;
declined:
    if (!PyErr_Occurred()) { Py_INCREF(Py_None); result = Py_None; }
done:
    Py_XDECREF(out);
    for (int f = 0; f < NC; f++) table_free(&tables[f]);
    table_free(&requests);
    PyBuffer_Release(&view);
    return result;
}

/* -- first_not_of ------------------------------------------------------------------------ */

/* first_not_of(values, types): the index of the first item of the list values whose exact
 * type is none of the tuple types (at most 8 types), or -1. No Python code runs meanwhile,
 * so the list cannot change under the loop. */
static PyObject *first_not_of(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *values, *types;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &values, &PyTuple_Type, &types)) return NULL;
    Py_ssize_t nt = PyTuple_GET_SIZE(types);
    if (!PyList_CheckExact(values) || nt > 8) Py_RETURN_NONE;
    PyTypeObject *ts[8];
    for (Py_ssize_t k = 0; k < nt; k++) {
        PyObject *t = PyTuple_GET_ITEM(types, k);
        if (!PyType_Check(t)) Py_RETURN_NONE;
        ts[k] = (PyTypeObject *)t;
    }
    Py_ssize_t n = PyList_GET_SIZE(values);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyTypeObject *tp = Py_TYPE(PyList_GET_ITEM(values, i));
        int ok = 0;
        for (Py_ssize_t k = 0; k < nt && !ok; k++) ok = tp == ts[k];
        if (!ok) return PyLong_FromSsize_t(i);
    }
    return PyLong_FromLong(-1);
}

/* -- row_ordinals ----------------------------------------------------------------------- */

/* row_ordinals(columns, n): columns is a list of k lists of n exact ints in 0..2^63-1 (k >= 1);
 * row i is (columns[0][i], ..., columns[k-1][i]). Answers (firsts, ordinals): the index of
 * each distinct row's first occurrence, in order of first occurrence, and for every row the
 * position of its row in firsts. None for anything else (the twin answers). */
static uint64_t mix64(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static PyObject *row_ordinals(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *columns;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "O!n", &PyList_Type, &columns, &n)) return NULL;
    Py_ssize_t k = PyList_GET_SIZE(columns);
    if (!PyList_CheckExact(columns) || k < 1 || n < 0 || k > 64) Py_RETURN_NONE;
    for (Py_ssize_t c = 0; c < k; c++) {
        PyObject *col = PyList_GET_ITEM(columns, c);
        if (!PyList_CheckExact(col) || PyList_GET_SIZE(col) != n) Py_RETURN_NONE;
    }
    if ((size_t)n > ((size_t)PY_SSIZE_T_MAX / sizeof(int64_t)) / (size_t)k) Py_RETURN_NONE;
    int64_t *vals = PyMem_Malloc((size_t)(n ? n : 1) * (size_t)k * sizeof(int64_t));
    Py_ssize_t cap = 8;
    while (cap < 2 * n) cap *= 2;
    Py_ssize_t *slots = PyMem_Malloc((size_t)cap * sizeof(Py_ssize_t)); /* a first row's index, or -1 */
    PyObject *firsts = NULL, *ordinals = NULL, *result = NULL;
    if (vals == NULL || slots == NULL) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t c = 0; c < k; c++) {
        PyObject *col = PyList_GET_ITEM(columns, c);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *v = PyList_GET_ITEM(col, i);
            if (!PyLong_CheckExact(v)) goto declined; /* (a bool is not an exact int) */
            int overflow = 0;
            long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
            if (overflow || x < 0) goto declined;
            vals[i * k + c] = (int64_t)x;
        }
    }
    for (Py_ssize_t s = 0; s < cap; s++) slots[s] = -1;
    firsts = PyList_New(0);
    ordinals = PyList_New(n);
    if (firsts == NULL || ordinals == NULL) goto done;
    Py_ssize_t distinct = 0;
    Py_ssize_t *place = PyMem_Malloc((size_t)cap * sizeof(Py_ssize_t)); /* slot -> position in firsts */
    if (place == NULL) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < n; i++) {
        const int64_t *row = vals + i * k;
        uint64_t h = 0;
        for (Py_ssize_t c = 0; c < k; c++) h = mix64(h, (uint64_t)row[c]);
        Py_ssize_t s = (Py_ssize_t)(h & (uint64_t)(cap - 1));
        while (slots[s] >= 0 && memcmp(vals + slots[s] * k, row, (size_t)k * sizeof(int64_t)) != 0)
            s = (s + 1) & (cap - 1);
        if (slots[s] < 0) {
            slots[s] = i;
            place[s] = distinct++;
            if (append_new(firsts, PyLong_FromSsize_t(i)) < 0) { PyMem_Free(place); goto done; }
        }
        PyObject *o = PyLong_FromSsize_t(place[s]);
        if (o == NULL) { PyMem_Free(place); goto done; }
        PyList_SET_ITEM(ordinals, i, o);
    }
    PyMem_Free(place);
    result = PyTuple_Pack(2, firsts, ordinals);
    goto done;
declined:
    PyErr_Clear(); /* (reading an exact int in range sets none) */
    Py_INCREF(Py_None);
    result = Py_None;
done:
    PyMem_Free(vals);
    PyMem_Free(slots);
    Py_XDECREF(firsts);
    Py_XDECREF(ordinals); /* a list with unset (NULL) items is freed safely */
    return result;
}


/* -- KAI's best node (app/kai/allocate.py) ------------------------------------------------- */

/* Not a pass over pods: the KAI solver asks for a task's best node thousands of times per
 * decision, and each numpy step over the nodes costs more in calls than in work. The
 * twins are app.kai.allocate.fit_py and score_py. The matrices are the cluster's node
 * accounting (int64, nodes x resources, C order); anything else declines. */

typedef struct { Py_buffer b; int held; } Buf;

static void release(Buf *x, int n) {
    for (int i = 0; i < n; i++) if (x[i].held) PyBuffer_Release(&x[i].b);
}

/* an int64 buffer (format l or q, itemsize 8), C-contiguous, of ndim dims (shape checked by the caller) */
static int int64_buffer(PyObject *o, Buf *x, int ndim, int writable) {
    x->held = 0;
    if (PyObject_GetBuffer(o, &x->b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) {
        PyErr_Clear();
        return 0;
    }
    x->held = 1;
    const char *f = x->b.format;
    if (f != NULL && (*f == '<' || *f == '=' || *f == '@')) f++;
    return x->b.itemsize == 8 && x->b.ndim == ndim && f != NULL && (f[0] == 'l' || f[0] == 'q') && f[1] == 0;
}

/* kai_fit(alloc, used, releasing, pipelined, nodes, req, col, out): writes to out the
 * nodes (in order) where every resource of req fits allocatable - used + releasing -
 * pipelined, and returns (count, lo, hi, any): over the nodes with allocatable on col
 * (col >= 0), the least and most of that free amount on col, and whether there is one. */
static PyObject *kai_fit(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *o[6], *out_o;
    Py_ssize_t col;
    if (!PyArg_ParseTuple(args, "OOOOOOnO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &col, &out_o)) return NULL;
    Buf x[7];
    memset(x, 0, sizeof x);
    PyObject *result = NULL;
    int ok = 1;
    for (int i = 0; i < 4; i++) ok = ok && int64_buffer(o[i], &x[i], 2, 0);
    ok = ok && int64_buffer(o[4], &x[4], 1, 0) && int64_buffer(o[5], &x[5], 1, 0) && int64_buffer(out_o, &x[6], 1, 1);
    if (!ok) goto declined;
    Py_ssize_t rows = x[0].b.shape[0], r = x[0].b.shape[1], n = x[4].b.shape[0];
    for (int i = 1; i < 4; i++)
        if (x[i].b.shape[0] != rows || x[i].b.shape[1] != r) goto declined;
    if (x[5].b.shape[0] != r || x[6].b.shape[0] < n || col >= r || col < -1) goto declined;
    const int64_t *al = x[0].b.buf, *us = x[1].b.buf, *re = x[2].b.buf, *pi = x[3].b.buf;
    const int64_t *nodes = x[4].b.buf, *req = x[5].b.buf;
    int64_t *out = x[6].b.buf;
    for (Py_ssize_t j = 0; j < n; j++)
        if (nodes[j] < 0 || nodes[j] >= rows) goto declined;
    Py_ssize_t k = 0;
    int any = 0;
    int64_t lo = 0, hi = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t at = (Py_ssize_t)nodes[j] * r;
        if (col >= 0 && al[at + col] > 0) {
            int64_t f = (int64_t)((uint64_t)al[at + col] - (uint64_t)us[at + col] + (uint64_t)re[at + col] - (uint64_t)pi[at + col]);
            if (!any || f < lo) lo = f;
            if (!any || f > hi) hi = f;
            any = 1;
        }
        int fits = 1;
        for (Py_ssize_t c = 0; c < r && fits; c++) {
            int64_t f = (int64_t)((uint64_t)al[at + c] - (uint64_t)us[at + c] + (uint64_t)re[at + c] - (uint64_t)pi[at + c]);
            fits = req[c] <= f;
        }
        if (fits) out[k++] = nodes[j];
    }
    result = Py_BuildValue("(nddO)", k, (double)lo, (double)hi, any ? Py_True : Py_False);
    release(x, 7);
    return result;
declined:
    release(x, 7);
    Py_RETURN_NONE;
}

/* kai_score(alloc, used, releasing, pipelined, cand, req, col, lo, hi, any, spread,
 * cpu_only_node, nominated): the node of cand with the highest KAI score (ties: the
 * lowest index), each term added in the order score_py adds it. cpu_only_node is None
 * or a bool buffer over all nodes (the task is CPU-only); nominated is -1 or a node. */
__attribute__((optimize("fp-contract=off")))
/* A KAI node score's first two terms, added in KAI's order (app/kai/allocate.py score_array):
 * nodeavailability (100 when the task fits idle capacity), then on the placement column
 * nodeplacement (on_col: the task has a placement column): spread, the free fraction av / total; binpack (when binpack holds), 0..9 over
 * lo..hi; nothing on a node without the resource (have 0). */
static double kai_base_score(int fits_idle, int on_col, int have, double av, double total, int spread, int binpack,
                             double lo, double hi) {
    double score = fits_idle ? 100.0 : 0.0;
    if (on_col) {
        if (spread) {
            double part = av / total;
            score = score + (have ? part : 0.0);
        } else if (binpack) {
            double part = lo == hi ? 9.0 : 9.0 * (1.0 - (av - lo) / (hi - lo));
            score = score + (have ? part : 0.0);
        }
    }
    return score;
}

static PyObject *kai_score(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *o[6], *any_o, *cpu_o;
    Py_ssize_t col, nominated;
    double lo, hi;
    int spread;
    if (!PyArg_ParseTuple(args, "OOOOOOnddOpOn", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &col, &lo, &hi, &any_o,
                          &spread, &cpu_o, &nominated))
        return NULL;
    Buf x[7];
    memset(x, 0, sizeof x);
    int ok = 1;
    for (int i = 0; i < 4; i++) ok = ok && int64_buffer(o[i], &x[i], 2, 0);
    ok = ok && int64_buffer(o[4], &x[4], 1, 0) && int64_buffer(o[5], &x[5], 1, 0);
    const unsigned char *cpu_only = NULL;
    if (ok && cpu_o != Py_None) {
        x[6].held = 0;
        if (PyObject_GetBuffer(cpu_o, &x[6].b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) { PyErr_Clear(); ok = 0; }
        else {
            x[6].held = 1;
            ok = x[6].b.itemsize == 1 && x[6].b.ndim == 1 && x[6].b.format != NULL && strcmp(x[6].b.format, "?") == 0;
            cpu_only = x[6].b.buf;
        }
    }
    if (!ok) goto declined;
    Py_ssize_t rows = x[0].b.shape[0], r = x[0].b.shape[1], n = x[4].b.shape[0];
    for (int i = 1; i < 4; i++)
        if (x[i].b.shape[0] != rows || x[i].b.shape[1] != r) goto declined;
    if (x[5].b.shape[0] != r || col >= r || col < -1 || n < 1 || (cpu_only != NULL && x[6].b.shape[0] != rows)) goto declined;
    const int64_t *al = x[0].b.buf, *us = x[1].b.buf, *re = x[2].b.buf, *pi = x[3].b.buf;
    const int64_t *cand = x[4].b.buf, *req = x[5].b.buf;
    for (Py_ssize_t j = 0; j < n; j++)
        if (cand[j] < 0 || cand[j] >= rows) goto declined;
    int binpack = col >= 0 && !spread && any_o == Py_True && hi > 0;
    double best = 0.0;
    int64_t best_node = -1;
    for (Py_ssize_t j = 0; j < n; j++) {
        int64_t node = cand[j];
        Py_ssize_t at = (Py_ssize_t)node * r;
        int idle = 1;
        for (Py_ssize_t c = 0; c < r && idle; c++)
            idle = req[c] <= (int64_t)((uint64_t)al[at + c] - (uint64_t)us[at + c]);
        double avail = 0.0, total = 0.0;
        int have = 0;
        if (col >= 0) {
            have = al[at + col] > 0;
            avail = (double)(int64_t)((uint64_t)al[at + col] - (uint64_t)us[at + col] + (uint64_t)re[at + col] - (uint64_t)pi[at + col]);
            total = (double)al[at + col];
        }
        double score = kai_base_score(idle, col >= 0, have, avail, total, spread, binpack, lo, hi);
        if (cpu_only != NULL) score = score + (cpu_only[node] ? 10.0 : 0.0);
        if (nominated >= 0) score = score + (node == nominated ? 1000000.0 : 0.0);
        if (best_node < 0 || score > best || (score == best && node < best_node)) {
            best = score;
            best_node = node;
        }
    }
    release(x, 7);
    return PyLong_FromLongLong(best_node);
declined:
    release(x, 7);
    Py_RETURN_NONE;
}

/* kai_copies(alloc, used, releasing, pipelined, nodes, reqs, counts): whether the nodes
 * could hold counts[g] copies of each distinct request reqs[g] side by side (per node, the
 * least over the asked resources of free // request, free = max(0, allocatable - used +
 * releasing - pipelined)), and, with more than one request, all of them together within
 * the nodes' total free. */
static PyObject *kai_copies(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *o[7];
    if (!PyArg_ParseTuple(args, "OOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6])) return NULL;
    Buf x[7];
    memset(x, 0, sizeof x);
    int ok = 1;
    for (int i = 0; i < 4; i++) ok = ok && int64_buffer(o[i], &x[i], 2, 0);
    ok = ok && int64_buffer(o[4], &x[4], 1, 0) && int64_buffer(o[5], &x[5], 2, 0) && int64_buffer(o[6], &x[6], 1, 0);
    if (!ok) goto declined;
    Py_ssize_t rows = x[0].b.shape[0], r = x[0].b.shape[1], n = x[4].b.shape[0], g = x[5].b.shape[0];
    for (int i = 1; i < 4; i++)
        if (x[i].b.shape[0] != rows || x[i].b.shape[1] != r) goto declined;
    if (x[5].b.shape[1] != r || x[6].b.shape[0] != g || n < 1 || r > 64) goto declined;
    const int64_t *al = x[0].b.buf, *us = x[1].b.buf, *re = x[2].b.buf, *pi = x[3].b.buf;
    const int64_t *nodes = x[4].b.buf, *reqs = x[5].b.buf, *counts = x[6].b.buf;
    for (Py_ssize_t j = 0; j < n; j++)
        if (nodes[j] < 0 || nodes[j] >= rows) goto declined;
    if ((size_t)n > ((size_t)PY_SSIZE_T_MAX / sizeof(int64_t)) / (size_t)(r ? r : 1)) goto declined;
    int64_t *free_ = PyMem_Malloc((size_t)n * (size_t)(r ? r : 1) * sizeof(int64_t));
    if (free_ == NULL) { release(x, 7); return PyErr_NoMemory(); }
    uint64_t total[64] = {0};
    for (Py_ssize_t j = 0; j < n; j++) {
        Py_ssize_t at = (Py_ssize_t)nodes[j] * r;
        for (Py_ssize_t c = 0; c < r; c++) {
            int64_t f = (int64_t)((uint64_t)al[at + c] - (uint64_t)us[at + c] + (uint64_t)re[at + c] - (uint64_t)pi[at + c]);
            if (f < 0) f = 0;
            free_[j * r + c] = f;
            total[c] += (uint64_t)f;
        }
    }
    int fits = 1;
    if (g > 1)
        for (Py_ssize_t c = 0; c < r && fits; c++) {
            uint64_t want = 0;
            for (Py_ssize_t k = 0; k < g; k++) want += (uint64_t)counts[k] * (uint64_t)reqs[k * r + c];
            if ((int64_t)want > (int64_t)total[c]) fits = 0;
        }
    for (Py_ssize_t k = 0; k < g && fits; k++) {
        const int64_t *req = reqs + k * r;
        int asked = 0;
        for (Py_ssize_t c = 0; c < r; c++) asked |= req[c] > 0;
        if (!asked) continue;
        uint64_t copies = 0;
        for (Py_ssize_t j = 0; j < n; j++) {
            int64_t least = -1;
            for (Py_ssize_t c = 0; c < r; c++)
                if (req[c] > 0) {
                    int64_t q = free_[j * r + c] / req[c];
                    if (least < 0 || q < least) least = q;
                }
            copies += (uint64_t)least;
        }
        if ((int64_t)copies < counts[k]) fits = 0;
    }
    PyMem_Free(free_);
    release(x, 7);
    return PyBool_FromLong(fits);
declined:
    release(x, 7);
    Py_RETURN_NONE;
}

/* kai_run(idle, future, total, cpu_rows, topo_rows, ok, node_ids, req, col, spread, count):
 * app/kai/allocate.py run_py, the same arithmetic in the same order: count identical tasks
 * (request req) placed one at a time on the rows of a node set, each to the row with the
 * highest KAI score among those where req fits future and ok holds (ties: the lowest node
 * id); idle and future (rows x resources) updated in place. A heap of (-score, node id,
 * row); after a placement only that row is scored again, unless the binpack range over
 * the rows with total > 0 moved, when every row is. Returns (rows, allocated) as lists
 * (fewer than count when a task found no row), or None (nothing changed) when an argument
 * is not what the twin takes. */
typedef struct { double neg; int64_t id; Py_ssize_t row; } RunEntry;

static int run_less(const RunEntry *a, const RunEntry *b) {
    if (a->neg != b->neg) return a->neg < b->neg;
    if (a->id != b->id) return a->id < b->id;
    return a->row < b->row;
}

static void run_push(RunEntry *h, Py_ssize_t *n, RunEntry e) {
    Py_ssize_t i = (*n)++;
    while (i > 0) {
        Py_ssize_t p = (i - 1) / 2;
        if (!run_less(&e, &h[p])) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = e;
}

static RunEntry run_pop(RunEntry *h, Py_ssize_t *n) {
    RunEntry top = h[0], last = h[--(*n)];
    Py_ssize_t i = 0, m = *n;
    for (;;) {
        Py_ssize_t c = 2 * i + 1;
        if (c >= m) break;
        if (c + 1 < m && run_less(&h[c + 1], &h[c])) c++;
        if (!run_less(&h[c], &last)) break;
        h[i] = h[c];
        i = c;
    }
    if (m > 0) h[i] = last;
    return top;
}

typedef struct {
    int64_t *idle, *future;
    const int64_t *total, *req;
    const unsigned char *cpu, *ok;
    const double *topo;
    Py_ssize_t r, col;
    int spread, anyc;
    double lo, hi;
} RunState;

static int run_fits(const int64_t *req, const int64_t *row, Py_ssize_t r) {
    for (Py_ssize_t c = 0; c < r; c++)
        if (req[c] > row[c]) return 0;
    return 1;
}

static double run_score(const RunState *s, Py_ssize_t i) {
    int on = s->col >= 0;
    double out = kai_base_score(run_fits(s->req, s->idle + i * s->r, s->r), on, on && s->total[i] > 0,
                                on ? (double)s->future[i * s->r + s->col] : 0.0, on ? (double)s->total[i] : 0.0,
                                s->spread, s->anyc && s->hi > 0, s->lo, s->hi);
    if (s->cpu != NULL) out = out + (s->cpu[i] ? 10.0 : 0.0);
    if (s->topo != NULL) out = out + s->topo[i];
    return out;
}

static PyObject *kai_run(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *o[8];
    Py_ssize_t col, count;
    int spread;
    if (!PyArg_ParseTuple(args, "OOOOOOOOnpn", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &col, &spread, &count))
        return NULL;
    Buf x[8];
    memset(x, 0, sizeof x);
    RunState s;
    memset(&s, 0, sizeof s);
    RunEntry *heap = NULL;
    double *cur = NULL;
    unsigned char *valid = NULL;
    PyObject *rows_out = NULL, *alloc_out = NULL;
    int ok = int64_buffer(o[0], &x[0], 2, 1) && int64_buffer(o[1], &x[1], 2, 1) && int64_buffer(o[6], &x[6], 1, 0) &&
             int64_buffer(o[7], &x[7], 1, 0);
    if (ok && o[2] != Py_None) ok = int64_buffer(o[2], &x[2], 1, 0);
    for (int i = 3; ok && i < 6; i++) {
        if (i != 5 && o[i] == Py_None) continue;
        if (PyObject_GetBuffer(o[i], &x[i].b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) { PyErr_Clear(); ok = 0; break; }
        x[i].held = 1;
        const char *want = i == 4 ? "d" : "?";
        const char *f = x[i].b.format;
        if (f != NULL && (*f == '<' || *f == '=' || *f == '@')) f++;
        ok = x[i].b.ndim == 1 && f != NULL && strcmp(f, want) == 0 && x[i].b.itemsize == (i == 4 ? 8 : 1);
    }
    if (!ok) goto declined;
    Py_ssize_t rows = x[0].b.shape[0], r = x[0].b.shape[1];
    if (x[1].b.shape[0] != rows || x[1].b.shape[1] != r || x[7].b.shape[0] != r || x[6].b.shape[0] != rows) goto declined;
    if (x[5].b.shape[0] != rows || col < -1 || col >= r || count < 0) goto declined;
    if ((o[2] == Py_None) != (col < 0)) goto declined;
    if (o[2] != Py_None && x[2].b.shape[0] != rows) goto declined;
    for (int i = 3; i < 5; i++)
        if (o[i] != Py_None && x[i].b.shape[0] != rows) goto declined;
    s.idle = x[0].b.buf;
    s.future = x[1].b.buf;
    s.total = o[2] != Py_None ? x[2].b.buf : NULL;
    s.cpu = o[3] != Py_None ? x[3].b.buf : NULL;
    s.topo = o[4] != Py_None ? x[4].b.buf : NULL;
    s.ok = x[5].b.buf;
    s.req = x[7].b.buf;
    s.r = r;
    s.col = col;
    s.spread = spread;
    const int64_t *ids = x[6].b.buf;
    /* the binpack range over the rows with total > 0 */
    int first = 1;
    if (col >= 0)
        for (Py_ssize_t i = 0; i < rows; i++) {
            if (s.total[i] <= 0) continue;
            double v = (double)s.future[i * r + col];
            if (first || v < s.lo) s.lo = v;
            if (first || v > s.hi) s.hi = v;
            first = 0;
        }
    s.anyc = !first;
    int binpack = col >= 0 && !spread && s.anyc && s.hi > 0;
    heap = PyMem_Malloc(sizeof(RunEntry) * (size_t)(rows + count + 1));
    cur = PyMem_Malloc(sizeof(double) * (size_t)(rows + 1));
    valid = PyMem_Calloc((size_t)rows + 1, 1);
    rows_out = PyList_New(0);
    alloc_out = PyList_New(0);
    if (heap == NULL || cur == NULL || valid == NULL || rows_out == NULL || alloc_out == NULL) {
        PyErr_NoMemory();
        goto failed;
    }
    Py_ssize_t n = 0;
    int rebuild = 1;
    for (Py_ssize_t k = 0; k < count; k++) {
        if (rebuild) {
            n = 0;
            for (Py_ssize_t i = 0; i < rows; i++) {
                valid[i] = 0;
                if (!s.ok[i] || !run_fits(s.req, s.future + i * r, r)) continue;
                cur[i] = run_score(&s, i);
                valid[i] = 1;
                RunEntry e = {-cur[i], ids[i], i};
                run_push(heap, &n, e);
            }
            rebuild = 0;
        }
        while (n > 0 && !(valid[heap[0].row] && cur[heap[0].row] == -heap[0].neg)) run_pop(heap, &n);
        if (n == 0) break;
        Py_ssize_t i = run_pop(heap, &n).row;
        valid[i] = 0;
        int64_t *id = s.idle + i * r, *fu = s.future + i * r;
        int fits_idle = run_fits(s.req, id, r);
        double was = col >= 0 ? (double)fu[col] : 0.0;
        for (Py_ssize_t c = 0; c < r; c++) {
            if (fits_idle) id[c] = (int64_t)((uint64_t)id[c] - (uint64_t)s.req[c]);
            fu[c] = (int64_t)((uint64_t)fu[c] - (uint64_t)s.req[c]);
        }
        PyObject *row = PyLong_FromSsize_t(i);
        if (row == NULL || PyList_Append(rows_out, row) < 0 || PyList_Append(alloc_out, fits_idle ? Py_True : Py_False) < 0) {
            Py_XDECREF(row);
            goto failed;
        }
        Py_DECREF(row);
        if (binpack && s.total[i] > 0 && s.req[col]) {
            double nlo = (double)fu[col] < s.lo ? (double)fu[col] : s.lo, nhi = s.hi;
            if (was == s.hi) {
                int any = 0;
                for (Py_ssize_t j = 0; j < rows; j++) {
                    if (s.total[j] <= 0) continue;
                    double v = (double)s.future[j * r + col];
                    if (!any || v > nhi) nhi = v;
                    any = 1;
                }
            }
            if (nlo != s.lo || nhi != s.hi) {
                s.lo = nlo;
                s.hi = nhi;
                binpack = s.hi > 0;
                rebuild = 1;
                continue;
            }
        }
        if (run_fits(s.req, fu, r)) {
            cur[i] = run_score(&s, i);
            valid[i] = 1;
            RunEntry e = {-cur[i], ids[i], i};
            run_push(heap, &n, e);
        }
    }
    PyMem_Free(heap);
    PyMem_Free(cur);
    PyMem_Free(valid);
    release(x, 8);
    PyObject *out = PyTuple_Pack(2, rows_out, alloc_out);
    Py_DECREF(rows_out);
    Py_DECREF(alloc_out);
    return out;
failed:
    PyMem_Free(heap);
    PyMem_Free(cur);
    PyMem_Free(valid);
    Py_XDECREF(rows_out);
    Py_XDECREF(alloc_out);
    release(x, 8);
    return NULL;
declined:
    release(x, 8);
    Py_RETURN_NONE;
}

/* -- kube_pod ------------------------------------------------------------------------ */

/* kube_pod(o, ptr): the PodDraft app.ingest.kube._pod_fast (its twin) builds for the Pod
 * o (a dict as orjson makes it) at JSON pointer ptr, made in one C pass: the same checks
 * in the same order, the same objects (maps of the pod are shared, not copied), the
 * PodDraft's slots written directly. None to decline: wherever the twin would answer None,
 * and for anything the pass was not written for (not exact dicts, lists and strs, a
 * callback's InputError, a setup that did not run); the twin then answers. The time and
 * request caches are the twin's own dicts, read here; a miss calls the twin's function
 * (r.timestamp, effective_pod_request), as does a preemptable flag (r.flag).
 * kube_pod_setup(consts, pod_cls, pod_fields, group_cls, group_fields, input_error,
 * time_cache, timestamp, by_containers, request, flag, phases) hands over those objects
 * once, at import. */

enum {
    K_METADATA, K_SPEC, K_STATUS, K_NAME, K_NAMESPACE, K_LABELS, K_ANNOTATIONS, K_PHASE, K_NODE_SELECTOR,
    K_AFFINITY, K_TOLERATIONS, K_GATES, K_PRIORITY, K_SCHEDULING_GROUP, K_WORKLOAD_REF, K_UID, K_NODE_NAME,
    K_PRIORITY_CLASS, K_NOMINATED, K_POLICY, K_SCHEDULER, K_SPREAD, K_CLAIMS, K_CONTAINERS, K_PORTS, K_HOST_PORT,
    K_CREATED, K_DELETED, K_INIT_CONTAINERS, K_RESOURCES, K_OVERHEAD, K_REQUESTS, K_LIMITS, K_KIND,
    K_POD_AFFINITY, K_POD_ANTI_AFFINITY, K_API_VERSION, K_OWNERS, K_CONTROLLER, V_REPLICA_SET, V_STATEFUL_SET,
    V_REPLICATION_CONTROLLER, V_V1, V_RUNNING, V_DEFAULT, V_PENDING, V_EMPTY, V_POD, V_VOLCANO, V_KAI, V_SIGS, V_CREATED_AT, V_SPEC_AT,
    /* from the twin's module (consts, by these names) */
    C_VOLCANO_GROUP_ANNOTATION, C_KAI_GROUP_ANNOTATION, C_SIGS_GROUP_LABEL, C_SIGS_LEGACY_GROUP_LABEL, C_KOORD_NAME,
    C_SIGS_V1ALPHA1_LABEL, C_KAI_GPU_FRACTION, C_KAI_TASK_PRIORITY_LABEL, C_KAI_QUEUE_LABEL, C_VOLCANO_TASK_SPEC,
    C_KAI_SUBGROUP_LABEL, C_VOLCANO_PREEMPTABLE, C_KAI_SCHEDULER_NAME, C_KAI_PRIORITY_LABEL, C_KAI_PREEMPTIBILITY_LABEL,
    C_KAI_GPU_MEMORY, C_KAI_MIG_PREFIX, C_VOLCANO_COOLDOWN, C_VOLCANO_QUEUE_ANNOTATION, C_VOLCANO_GROUP_AT, C_KAI_GROUP_AT, C_SIGS_GROUP_AT,
    KP_NSTR
};
static const char *const KP_TEXT[KP_NSTR] = {
    "metadata", "spec", "status", "name", "namespace", "labels", "annotations", "phase", "nodeSelector",
    "affinity", "tolerations", "schedulingGates", "priority", "schedulingGroup", "workloadRef", "uid", "nodeName",
    "priorityClassName", "nominatedNodeName", "preemptionPolicy", "schedulerName", "topologySpreadConstraints",
    "resourceClaims", "containers", "ports", "hostPort", "creationTimestamp", "deletionTimestamp", "initContainers", "resources",
    "overhead", "requests", "limits", "kind", "podAffinity", "podAntiAffinity", "apiVersion", "ownerReferences",
    "controller", "ReplicaSet", "StatefulSet", "ReplicationController", "v1", "Running",
    "default", "Pending", "", "Pod", "volcano", "kai", "scheduler-plugins", "/metadata/creationTimestamp", "/spec",
    "VOLCANO_GROUP_ANNOTATION", "KAI_GROUP_ANNOTATION", "SIGS_GROUP_LABEL", "SIGS_LEGACY_GROUP_LABEL", "KOORD_NAME",
    "SIGS_V1ALPHA1_LABEL", "KAI_GPU_FRACTION", "KAI_TASK_PRIORITY_LABEL", "KAI_QUEUE_LABEL", "VOLCANO_TASK_SPEC",
    "KAI_SUBGROUP_LABEL", "VOLCANO_PREEMPTABLE", "KAI_SCHEDULER_NAME", "KAI_PRIORITY_LABEL", "KAI_PREEMPTIBILITY_LABEL",
    "KAI_GPU_MEMORY", "KAI_MIG_PREFIX", "VOLCANO_COOLDOWN", "VOLCANO_QUEUE_ANNOTATION", "VOLCANO_GROUP_AT", "KAI_GROUP_AT", "SIGS_GROUP_AT",
};
enum { KP_FIRST_CONST = C_VOLCANO_GROUP_ANNOTATION };

/* PodDraft's fields, in the order of its class (checked at setup), and GroupRef's. */
static const char *const POD_SLOTS[] = {
    "namespace", "name", "uid", "node_name", "phase", "deleting", "priority", "priority_class", "req", "labels",
    "annotations", "group", "queue", "role", "subgroup", "preemptable", "created", "nominated", "gated",
    "preemption_policy", "node_selector", "affinity", "tolerations", "task_priority", "pointer", "ident", "binding",
    "kai_pod", "kai_class", "kai_preemptibility", "host_ports", "spread", "soft_spread", "scheduler",
};
enum { NPOD = sizeof(POD_SLOTS) / sizeof(POD_SLOTS[0]) };
static const char *const GROUP_SLOTS[] = {"source", "name", "pointer", "extra"};
enum { NGROUP = 4 };

static struct {
    int ready;
    PyObject *s[KP_NSTR];
    PyTypeObject *pod, *group;
    Py_ssize_t pod_at[NPOD], group_at[NGROUP];
    PyObject *input_error, *time_cache, *timestamp, *by_containers, *request, *flag, *phases;
} KP;

/* The slot offsets of cls for names, in that order: 0 when cls is not a plain slotted
 * class with exactly these object slots. */
static int slot_offsets(PyTypeObject *cls, const char *const *names, Py_ssize_t n, Py_ssize_t *at) {
    if (cls->tp_dictoffset != 0) return 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *name = PyUnicode_InternFromString(names[j]);
        if (name == NULL) return -1;
        PyObject *d = _PyType_Lookup(cls, name); /* borrowed */
        Py_DECREF(name);
        if (d == NULL || !Py_IS_TYPE(d, &PyMemberDescr_Type)) return 0;
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (PyDescr_TYPE((PyMemberDescrObject *)d) != cls || (m->type != T_OBJECT_EX && m->type != T_OBJECT)) return 0;
        at[j] = m->offset;
    }
    /* every slot named: the instance holds exactly these objects after its header */
    return cls->tp_basicsize == (Py_ssize_t)sizeof(PyObject) + n * (Py_ssize_t)sizeof(PyObject *);
}

static PyObject *kube_pod_setup(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *consts, *pod, *group, *fields, *gfields;
    PyObject *input_error, *time_cache, *timestamp, *by_containers, *request, *flag, *phases;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!OO!OO!OOO!", &PyDict_Type, &consts, &PyType_Type, &pod, &PyTuple_Type, &fields,
                          &PyType_Type, &group, &PyTuple_Type, &gfields, &input_error, &PyDict_Type, &time_cache,
                          &timestamp, &PyDict_Type, &by_containers, &request, &flag, &PyFrozenSet_Type, &phases))
        return NULL;
    KP.ready = 0;
    if (PyTuple_GET_SIZE(fields) != NPOD || PyTuple_GET_SIZE(gfields) != NGROUP) Py_RETURN_FALSE;
    for (Py_ssize_t j = 0; j < NPOD; j++) /* the class's field order is the one written here */
        if (!PyUnicode_Check(PyTuple_GET_ITEM(fields, j)) || PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(fields, j), POD_SLOTS[j]) != 0)
            Py_RETURN_FALSE;
    for (Py_ssize_t j = 0; j < NGROUP; j++)
        if (!PyUnicode_Check(PyTuple_GET_ITEM(gfields, j)) || PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(gfields, j), GROUP_SLOTS[j]) != 0)
            Py_RETURN_FALSE;
    int ok = slot_offsets((PyTypeObject *)pod, POD_SLOTS, NPOD, KP.pod_at);
    if (ok > 0) ok = slot_offsets((PyTypeObject *)group, GROUP_SLOTS, NGROUP, KP.group_at);
    if (ok < 0) return NULL;
    if (ok == 0) Py_RETURN_FALSE;
    for (int j = 0; j < KP_NSTR; j++) {
        PyObject *v;
        if (j < KP_FIRST_CONST) {
            v = PyUnicode_InternFromString(KP_TEXT[j]);
            if (v == NULL) return NULL;
        } else {
            v = PyDict_GetItemString(consts, KP_TEXT[j]); /* borrowed */
            if (v == NULL || !PyUnicode_CheckExact(v)) Py_RETURN_FALSE;
            Py_INCREF(v);
        }
        Py_XSETREF(KP.s[j], v);
    }
    PyObject *keep[] = {pod, group, input_error, time_cache, timestamp, by_containers, request, flag, phases};
    for (size_t j = 0; j < sizeof(keep) / sizeof(keep[0]); j++) Py_INCREF(keep[j]);
    Py_XSETREF(KP.pod, (PyTypeObject *)pod);
    Py_XSETREF(KP.group, (PyTypeObject *)group);
    Py_XSETREF(KP.input_error, input_error);
    Py_XSETREF(KP.time_cache, time_cache);
    Py_XSETREF(KP.timestamp, timestamp);
    Py_XSETREF(KP.by_containers, by_containers);
    Py_XSETREF(KP.request, request);
    Py_XSETREF(KP.flag, flag);
    Py_XSETREF(KP.phases, phases);
    KP.ready = 1;
    Py_RETURN_TRUE;
}

#define S(i) (KP.s[i])

/* d[key] (borrowed) or NULL when absent; d may be NULL (an absent map). -1 on an error. */
static int kp_get(PyObject *d, int key, PyObject **out) {
    *out = d == NULL ? NULL : PyDict_GetItemWithError(d, S(key));
    return (*out == NULL && PyErr_Occurred()) ? -1 : 0;
}

/* reader.plain_str_map: a new reference to v (a dict whose values are all exact strs),
 * a new empty dict for absent or null, NULL to decline (err set on a real error). */
static PyObject *kp_str_map(PyObject *v) {
    if (v == NULL || v == Py_None) return PyDict_New();
    if (!PyDict_CheckExact(v)) return NULL;
    Py_ssize_t pos = 0;
    PyObject *k, *x;
    while (PyDict_Next(v, &pos, &k, &x))
        if (!PyUnicode_CheckExact(x)) return NULL;
    Py_INCREF(v);
    return v;
}

/* d.get(key, "") as a new reference (d's values are strs). */
static PyObject *kp_str_or_empty(PyObject *d, int key) {
    PyObject *v = PyDict_GetItemWithError(d, S(key));
    if (v == NULL) {
        if (PyErr_Occurred()) return NULL;
        v = S(V_EMPTY);
    }
    Py_INCREF(v);
    return v;
}

/* podrequest._containers_key(spec) as a new tuple; Py_None (new reference) when the pod's
 * request depends on more than its regular containers' requests and limits; NULL on an
 * error. spec may be NULL (no spec). */
static PyObject *kp_containers_key(PyObject *spec) {
    PyObject *containers;
    if (spec == NULL) Py_RETURN_NONE;
    int has;
    if ((has = PyDict_Contains(spec, S(K_INIT_CONTAINERS))) != 0 || (has = PyDict_Contains(spec, S(K_RESOURCES))) != 0 ||
        (has = PyDict_Contains(spec, S(K_OVERHEAD))) != 0) {
        if (has < 0) return NULL;
        Py_RETURN_NONE;
    }
    if (kp_get(spec, K_CONTAINERS, &containers) < 0) return NULL;
    if (containers == NULL || !PyList_CheckExact(containers)) Py_RETURN_NONE;
    Py_ssize_t n = PyList_GET_SIZE(containers);
    PyObject *key = PyTuple_New(n);
    if (key == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyList_GET_ITEM(containers, i), *res, *part[2];
        if (!PyDict_CheckExact(c)) goto none;
        if (kp_get(c, K_RESOURCES, &res) < 0) goto fail;
        if (res == NULL || res == Py_None) {
            Py_INCREF(Py_None);
            PyTuple_SET_ITEM(key, i, Py_None);
            continue;
        }
        if (!PyDict_CheckExact(res)) goto none;
        for (int w = 0; w < 2; w++) {
            PyObject *m;
            if (kp_get(res, w ? K_LIMITS : K_REQUESTS, &m) < 0 || (m != NULL && m != Py_None && !PyDict_CheckExact(m))) {
                if (w) Py_DECREF(part[0]); /* the requests' items, made on the first pass */
                if (PyErr_Occurred()) goto fail;
                goto none;
            }
            if (m == NULL || m == Py_None || PyDict_GET_SIZE(m) == 0) { /* "if req else ()": absent, null or {} */
                part[w] = PyTuple_New(0);
            } else {
                PyObject *items = PyDict_Items(m);
                part[w] = items == NULL ? NULL : PyList_AsTuple(items);
                Py_XDECREF(items);
            }
            if (part[w] == NULL) {
                if (w) Py_DECREF(part[0]);
                goto fail;
            }
        }
        PyObject *pair = PyTuple_Pack(2, part[0], part[1]);
        Py_DECREF(part[0]);
        Py_DECREF(part[1]);
        if (pair == NULL) goto fail;
        PyTuple_SET_ITEM(key, i, pair);
    }
    return key;
none:
    Py_DECREF(key);
    Py_RETURN_NONE;
fail:
    Py_DECREF(key);
    return NULL;
}

/* f(args...) where an InputError means "decline": *declined set, NULL returned, the
 * error cleared. Any other error is left set. */
static PyObject *kp_call(PyObject *f, PyObject *const *args, size_t n, int *declined) {
    PyObject *out = PyObject_Vectorcall(f, args, n, NULL);
    if (out == NULL && PyErr_ExceptionMatches(KP.input_error)) {
        PyErr_Clear();
        *declined = 1;
    }
    return out;
}

/* The draft of pod o at ptr (a new reference), None (a new reference) to decline, NULL
 * on an error. */
/* The inputs of a pod draft: the values of the keys _pod_fast reads (borrowed; NULL for
 * an absent key, Py_None for null), whether they come from orjson's dicts (kp_pod) or
 * from the text (kt_pod). */
enum { I_NAME, I_NS, I_UID, I_LABELS, I_ANN, I_CREATED, I_DELETED, I_SELECTOR, I_AFFINITY, I_TOLERATIONS, I_GATES,
       I_PRIORITY, I_SGROUP, I_WREF, I_NODE, I_PCLASS, I_POLICY, I_SCHED, I_SPREAD, I_CLAIMS, I_CONTAINERS, I_PHASE, I_NOMINATED,
       NI };
static const int IN_KEY[NI] = {K_NAME, K_NAMESPACE, K_UID, K_LABELS, K_ANNOTATIONS, K_CREATED, K_DELETED, K_NODE_SELECTOR,
                               K_AFFINITY, K_TOLERATIONS, K_GATES, K_PRIORITY, K_SCHEDULING_GROUP, K_WORKLOAD_REF,
                               K_NODE_NAME, K_PRIORITY_CLASS, K_POLICY, K_SCHEDULER, K_SPREAD, K_CLAIMS, K_CONTAINERS, K_PHASE,
                               K_NOMINATED};
enum { IN_FIRST_SPEC = I_SELECTOR, IN_FIRST_STATUS = I_PHASE };

/* kube._opt_str of a value: a new reference ("" for absent or null), NULL to decline. */
static PyObject *kp_opt_val(PyObject *v) {
    if (v == NULL || v == Py_None) v = S(V_EMPTY);
    else if (!PyUnicode_CheckExact(v)) return NULL;
    Py_INCREF(v);
    return v;
}

/* Whether a containers list (containers or initContainers) has a host port, or is not in
 * the plain shape (not a list of dicts with lists of port dicts): 1 to decline, 0, -1 on an
 * error. */
static int kp_host_ports(PyObject *containers) {
    int has;
    if (!PyList_CheckExact(containers)) return 1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(containers); i++) {
        PyObject *c = PyList_GET_ITEM(containers, i), *ports;
        if (!PyDict_CheckExact(c)) return 1;
        if (kp_get(c, K_PORTS, &ports) < 0) return -1;
        if (ports == NULL || (has = PyObject_IsTrue(ports)) == 0) continue;
        if (has < 0) return -1;
        if (!PyList_CheckExact(ports)) return 1;
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(ports); k++) {
            PyObject *p = PyList_GET_ITEM(ports, k), *hp;
            if (!PyDict_CheckExact(p)) return 1;
            if (kp_get(p, K_HOST_PORT, &hp) < 0) return -1;
            if (hp != NULL && (has = PyObject_IsTrue(hp)) != 0) return has < 0 ? -1 : 1;
        }
    }
    return 0;
}

/* The draft of a pod from its inputs in (see I_*), spec its spec dict or NULL (read for the
 * request: its containers, initContainers, overhead, resources), req_hint its request when
 * the caller knows it (then in[I_CONTAINERS] is not looked at). As kp_pod answers. */
static PyObject *kp_draft(PyObject *const *in, PyObject *spec, PyObject *ptr, PyObject *req_hint) {
    PyObject *v[NPOD] = {NULL};
    PyObject *name = in[I_NAME], *ns = in[I_NS], *x, *affinity, *tolerations, *gates, *sched, *containers;
    PyObject *ident = NULL, *mp_key = NULL, *spec_arg = NULL;
    int declined = 0;
#define DECLINE() do { declined = 1; goto done; } while (0)
    if (name == NULL || !PyUnicode_CheckExact(name) || PyUnicode_GET_LENGTH(name) == 0) DECLINE();
    if (ns == Py_None) ns = NULL;
    if (ns != NULL && !PyUnicode_CheckExact(ns)) DECLINE();
    if (ns == NULL || PyUnicode_GET_LENGTH(ns) == 0) ns = S(V_DEFAULT);
    Py_INCREF(ns);
    v[0] = ns;
    Py_INCREF(name);
    v[1] = name;
    PyObject *labels, *ann;
    x = in[I_LABELS];
    if ((labels = v[9] = kp_str_map(x)) == NULL) { if (PyErr_Occurred()) goto fail; DECLINE(); }
    x = in[I_ANN];
    if ((ann = v[10] = kp_str_map(x)) == NULL) { if (PyErr_Occurred()) goto fail; DECLINE(); }
    int has = 0;  /* KAI's GPU sharing and task priority, Volcano's cooldown (cdp: the status's conditions): the full reader */
    if ((PyDict_GET_SIZE(ann) != 0 && ((has = PyDict_Contains(ann, S(C_KAI_GPU_FRACTION))) != 0
                                       || (has = PyDict_Contains(ann, S(C_KAI_GPU_MEMORY))) != 0
                                       || (has = PyDict_Contains(ann, S(C_VOLCANO_COOLDOWN))) != 0))
        || (has = PyDict_Contains(labels, S(C_KAI_TASK_PRIORITY_LABEL))) != 0
        || (PyDict_GET_SIZE(labels) != 0 && (has = PyDict_Contains(labels, S(C_VOLCANO_COOLDOWN))) != 0)) {
        if (has < 0) goto fail;
        DECLINE();
    }
    if (PyDict_GET_SIZE(ann) != 0) {  /* an annotation named after a MIG resource (KAI's legacy MIG): the full reader */
        Py_ssize_t at = 0;
        PyObject *key, *val;
        while (PyDict_Next(ann, &at, &key, &val)) {
            Py_ssize_t hit = PyUnicode_Tailmatch(key, S(C_KAI_MIG_PREFIX), 0, PY_SSIZE_T_MAX, -1);
            if (hit < 0) goto fail;
            if (hit) DECLINE();
        }
    }
    x = in[I_PHASE];
    if (x == NULL || x == Py_None) x = S(V_PENDING);
    if (!PyUnicode_CheckExact(x)) DECLINE();
    if ((has = PySet_Contains(KP.phases, x)) <= 0) { if (has < 0) goto fail; DECLINE(); }
    Py_INCREF(x);
    v[4] = x;
    x = in[I_SELECTOR];
    if ((v[20] = kp_str_map(x)) == NULL) { if (PyErr_Occurred()) goto fail; DECLINE(); }
    affinity = in[I_AFFINITY];
    tolerations = in[I_TOLERATIONS];
    gates = in[I_GATES];
    if (affinity == Py_None) affinity = NULL;
    if (affinity != NULL && !PyDict_CheckExact(affinity)) DECLINE();
    if (tolerations == Py_None) tolerations = NULL;
    if (tolerations != NULL) {
        if (!PyList_CheckExact(tolerations)) DECLINE();
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(tolerations); i++)
            if (!PyDict_CheckExact(PyList_GET_ITEM(tolerations, i))) DECLINE();
    }
    if (gates == Py_None) gates = NULL;
    if (gates != NULL && !PyList_CheckExact(gates)) DECLINE();
    x = in[I_PRIORITY];
    if (x == Py_None) x = NULL;
    if (x != NULL && !PyLong_CheckExact(x)) DECLINE();
    if (x != NULL) { /* beyond int64 (JSON's integers are unbounded): the full reader names it */
        int overflow = 0;
        if (PyLong_AsLongLongAndOverflow(x, &overflow) == -1 && PyErr_Occurred()) { PyErr_Clear(); DECLINE(); }
        if (overflow) DECLINE();
    }
    v[6] = x == NULL ? Py_None : x;
    Py_INCREF(v[6]);
    x = in[I_SGROUP];
    if (x != NULL && x != Py_None) DECLINE();
    x = in[I_WREF];
    if (x != NULL && x != Py_None) DECLINE();
    static const struct { int field, at; } OPT[] = {{2, I_UID}, {3, I_NODE}, {7, I_PCLASS}, {17, I_NOMINATED}, {19, I_POLICY}};
    for (size_t j = 0; j < sizeof(OPT) / sizeof(OPT[0]); j++)
        if ((v[OPT[j].field] = kp_opt_val(in[OPT[j].at])) == NULL) DECLINE();
    /* the gang: the first of these keys the pod has */
    static const struct { int key, in_ann, source, at; } GROUPS[] = {
        {C_VOLCANO_GROUP_ANNOTATION, 1, V_VOLCANO, C_VOLCANO_GROUP_AT},
        {C_KAI_GROUP_ANNOTATION, 1, V_KAI, C_KAI_GROUP_AT},
        {C_SIGS_GROUP_LABEL, 0, V_SIGS, C_SIGS_GROUP_AT},
    };
    for (size_t j = 0; j < sizeof(GROUPS) / sizeof(GROUPS[0]) && v[11] == NULL; j++) {
        x = PyDict_GetItemWithError(GROUPS[j].in_ann ? ann : labels, S(GROUPS[j].key));
        if (x == NULL) {
            if (PyErr_Occurred()) goto fail;
            continue;
        }
        PyObject *g = KP.group->tp_alloc(KP.group, 0);
        if (g == NULL) goto fail;
        v[11] = g;
        PyObject *gv[NGROUP] = {S(GROUPS[j].source), x, PyUnicode_Concat(ptr, S(GROUPS[j].at)), PyDict_New()};
        Py_INCREF(gv[0]);
        Py_INCREF(gv[1]);
        for (int k = 0; k < NGROUP; k++) *(PyObject **)((char *)g + KP.group_at[k]) = gv[k];
        if (gv[2] == NULL || gv[3] == NULL) goto fail;
    }
    if (v[11] == NULL) {
        if ((has = PyDict_Contains(labels, S(C_SIGS_LEGACY_GROUP_LABEL))) != 0 || (has = PyDict_Contains(ann, S(C_KOORD_NAME))) != 0 ||
            (has = PyDict_Contains(labels, S(C_SIGS_V1ALPHA1_LABEL))) != 0) {
            if (has < 0) goto fail;
            DECLINE();
        }
        Py_INCREF(Py_None);
        v[11] = Py_None;
    }
    sched = in[I_SCHED];
    if (sched == Py_None) sched = NULL;
    if (sched != NULL && !PyUnicode_CheckExact(sched)) DECLINE();
    x = in[I_SPREAD];
    if (x != NULL) {
        if ((has = PyObject_IsTrue(x)) != 0) { if (has < 0) goto fail; DECLINE(); }
    }
    x = in[I_CLAIMS]; /* DRA resource claims: the full reader (named in the warnings) */
    if (x != NULL) {
        if ((has = PyObject_IsTrue(x)) != 0) { if (has < 0) goto fail; DECLINE(); }
    }
    containers = req_hint != NULL ? NULL : in[I_CONTAINERS];
    if (containers == Py_None) containers = NULL;
    if (containers != NULL && (has = kp_host_ports(containers)) != 0) { if (has < 0) goto fail; DECLINE(); }
    if (spec != NULL) { /* sidecars' host ports count too (GetHostPorts): any init container's, the full reader */
        PyObject *inits;
        if (kp_get(spec, K_INIT_CONTAINERS, &inits) < 0) goto fail;
        if (inits != NULL && inits != Py_None && (has = kp_host_ports(inits)) != 0) { if (has < 0) goto fail; DECLINE(); }
    }
    /* ident = {"kind": "Pod", "name": name, "namespace": ns}, in that order */
    if ((ident = PyDict_New()) == NULL || PyDict_SetItem(ident, S(K_KIND), S(V_POD)) < 0 ||
        PyDict_SetItem(ident, S(K_NAME), name) < 0 || PyDict_SetItem(ident, S(K_NAMESPACE), v[0]) < 0)
        goto fail;
    x = in[I_CREATED];
    if (x == NULL || x == Py_None) {
        v[16] = PyFloat_FromDouble(0.0);
    } else {
        if (!PyUnicode_CheckExact(x)) DECLINE(); /* the twin's InputError */
        PyObject *hit = PyDict_GetItemWithError(KP.time_cache, x);
        if (hit != NULL) {
            Py_INCREF(hit);
            v[16] = hit;
        } else {
            if (PyErr_Occurred()) goto fail;
            if ((mp_key = PyUnicode_Concat(ptr, S(V_CREATED_AT))) == NULL) goto fail;
            PyObject *a[3] = {x, mp_key, ident};
            v[16] = kp_call(KP.timestamp, a, 3, &declined);
        }
    }
    if (v[16] == NULL) { if (declined) goto done; goto fail; }
    /* the request: the caller's (the same containers' text gave it), the twin's cache when
     * the key is there, else the twin's function */
    PyObject *key = req_hint != NULL ? (Py_INCREF(Py_None), Py_None) : kp_containers_key(spec);
    if (key == NULL) goto fail;
    PyObject *hit = NULL;
    if (key != Py_None) {
        hit = PyDict_GetItemWithError(KP.by_containers, key);
        if (hit == NULL && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_TypeError)) { Py_DECREF(key); goto fail; }
            PyErr_Clear(); /* unhashable: the twin's full path says why */
        }
    }
    Py_DECREF(key);
    if (req_hint != NULL) hit = req_hint;
    if (hit != NULL) {
        Py_INCREF(hit);
        v[8] = hit;
    } else {
        if ((spec_arg = spec != NULL ? (Py_INCREF(spec), spec) : PyDict_New()) == NULL) goto fail;
        PyObject *sp = PyUnicode_Concat(ptr, S(V_SPEC_AT));
        if (sp == NULL) goto fail;
        PyObject *a[3] = {spec_arg, sp, ident};
        v[8] = kp_call(KP.request, a, 3, &declined);
        Py_DECREF(sp);
        if (v[8] == NULL) { if (declined) goto done; goto fail; }
    }
    x = in[I_DELETED];
    v[5] = PyBool_FromLong(x != NULL && x != Py_None);
    if ((v[12] = kp_str_or_empty(labels, C_KAI_QUEUE_LABEL)) == NULL) goto fail;
    if (v[11] == Py_None && PyUnicode_Check(v[12]) && PyUnicode_GET_LENGTH(v[12]) == 0) { /* kube.pod_queue */
        Py_DECREF(v[12]);
        if ((v[12] = kp_str_or_empty(ann, C_VOLCANO_QUEUE_ANNOTATION)) == NULL) goto fail;
    }
    x = PyDict_GetItemWithError(ann, S(C_VOLCANO_TASK_SPEC)); /* ann.get(...) or labels.get(..., "") */
    if (x == NULL && PyErr_Occurred()) goto fail;
    if (x != NULL && PyUnicode_GET_LENGTH(x) > 0) {
        Py_INCREF(x);
        v[13] = x;
    } else if ((v[13] = kp_str_or_empty(labels, C_VOLCANO_TASK_SPEC)) == NULL) {
        goto fail;
    }
    if ((v[14] = kp_str_or_empty(labels, C_KAI_SUBGROUP_LABEL)) == NULL) goto fail;
    if ((has = PyDict_Contains(ann, S(C_VOLCANO_PREEMPTABLE))) < 0) goto fail;
    x = PyDict_GetItemWithError(has ? ann : labels, S(C_VOLCANO_PREEMPTABLE));
    if (x == NULL) {
        if (PyErr_Occurred()) goto fail;
        Py_INCREF(Py_None);
        v[15] = Py_None;
    } else if ((v[15] = PyObject_CallOneArg(KP.flag, x)) == NULL) {
        goto fail;
    }
    v[18] = PyBool_FromLong(gates != NULL && PyList_GET_SIZE(gates) > 0);
    v[21] = affinity != NULL && PyDict_GET_SIZE(affinity) > 0 ? affinity : Py_None;
    Py_INCREF(v[21]);
    if ((v[22] = tolerations != NULL ? PyList_AsTuple(tolerations) : PyTuple_New(0)) == NULL) goto fail;
    Py_INCREF(Py_None);
    v[23] = Py_None;
    Py_INCREF(ptr);
    v[24] = ptr;
    v[25] = ident;
    ident = NULL;
    Py_INCREF(Py_False);
    v[26] = Py_False;
    /* kube._kai_pod */
    int kai = 0;
    if (v[11] == Py_None) {
        int named = sched != NULL && PyUnicode_Compare(sched, S(C_KAI_SCHEDULER_NAME)) == 0;
        if (PyErr_Occurred()) goto fail;
        if (!named && (has = PyDict_Contains(labels, S(C_KAI_QUEUE_LABEL))) != 0) {
            if (has < 0) goto fail;
            named = 1;
        }
        kai = named;
    }
    v[27] = PyBool_FromLong(kai);
    if (kai) {
        if ((v[28] = kp_str_or_empty(labels, C_KAI_PRIORITY_LABEL)) == NULL) goto fail;
        if ((v[29] = kp_str_or_empty(labels, C_KAI_PREEMPTIBILITY_LABEL)) == NULL) goto fail;
    } else {
        v[28] = S(V_EMPTY);
        v[29] = S(V_EMPTY);
        Py_INCREF(v[28]);
        Py_INCREF(v[29]);
    }
    for (int j = 30; j < 33; j++)
        if ((v[j] = PyTuple_New(0)) == NULL) goto fail;
    v[33] = sched != NULL ? sched : S(V_EMPTY);
    Py_INCREF(v[33]);
    PyObject *out = KP.pod->tp_alloc(KP.pod, 0);
    if (out == NULL) goto fail;
    for (int j = 0; j < NPOD; j++) {
        *(PyObject **)((char *)out + KP.pod_at[j]) = v[j];
        v[j] = NULL;
    }
    Py_XDECREF(mp_key);
    Py_XDECREF(spec_arg);
    return out;
done: /* declined */
    for (int j = 0; j < NPOD; j++) Py_XDECREF(v[j]);
    Py_XDECREF(ident);
    Py_XDECREF(mp_key);
    Py_XDECREF(spec_arg);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
fail:
    for (int j = 0; j < NPOD; j++) Py_XDECREF(v[j]);
    Py_XDECREF(ident);
    Py_XDECREF(mp_key);
    Py_XDECREF(spec_arg);
    return NULL;
#undef DECLINE
}

/* The draft of pod o (a dict as orjson makes it) at ptr: a new reference, None (a new
 * reference) to decline, NULL on an error. */
static PyObject *kp_pod(PyObject *o, PyObject *ptr, PyObject *req_hint) {
    if (!KP.ready || !PyDict_CheckExact(o) || !PyUnicode_CheckExact(ptr)) Py_RETURN_NONE;
    PyObject *meta, *spec, *status, *in[NI];
    if (kp_get(o, K_METADATA, &meta) < 0 || kp_get(o, K_SPEC, &spec) < 0 || kp_get(o, K_STATUS, &status) < 0) return NULL;
    if (meta == NULL || !PyDict_CheckExact(meta)) Py_RETURN_NONE;
    if (spec == Py_None) spec = NULL;
    if (status == Py_None) status = NULL;
    if ((spec != NULL && !PyDict_CheckExact(spec)) || (status != NULL && !PyDict_CheckExact(status))) Py_RETURN_NONE;
    for (int j = 0; j < NI; j++)
        if (kp_get(j < IN_FIRST_SPEC ? meta : j < IN_FIRST_STATUS ? spec : status, IN_KEY[j], &in[j]) < 0) return NULL;
    return kp_draft(in, spec, ptr, req_hint);
}

static PyObject *kube_pod(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *o, *ptr;
    if (!PyArg_ParseTuple(args, "OO", &o, &ptr)) return NULL;
    return kp_pod(o, ptr, NULL);
}

/* draft_rows(pods, nodes, running, bound, default_queue, classes): build.draft_rows_py (the Python
 * twin) for a list of PodDrafts, reading their slots; None to decline (a pod of another
 * class, a slot unset or of a type the twin was not written for) and where the twin
 * answers None (a node not in nodes). */
static PyObject *draft_rows(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *pods, *nodes, *running, *bound, *dq, *classes;
    if (!PyArg_ParseTuple(args, "O!O!OOOO", &PyList_Type, &pods, &PyDict_Type, &nodes, &running, &bound, &dq, &classes)) return NULL;
    if (!KP.ready || !PyDict_CheckExact(nodes) || !PyUnicode_CheckExact(dq) || !PyFrozenSet_CheckExact(classes))
        Py_RETURN_NONE; /* (a dict subclass: the twin calls its get) */
    enum { KEYS, NODES, LIVE, OTHER, LIVE_KEYS, LIVE_NODES, LIVE_STATUS, LIVE_QUEUES, NOUT };
    PyObject *out[NOUT] = {NULL}, *none_idx = PyLong_FromLong(-1), *res = NULL;
    if (none_idx == NULL) return NULL;
    for (int j = 0; j < NOUT; j++)
        if ((out[j] = PyList_New(0)) == NULL) goto fail;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(pods); i++) {
        PyObject *p = PyList_GET_ITEM(pods, i);
        if (Py_TYPE(p) != KP.pod) goto decline;
#define SLOT(j) (*(PyObject **)((char *)p + KP.pod_at[j]))
        PyObject *ns = SLOT(0), *name = SLOT(1), *node_name = SLOT(3), *phase = SLOT(4), *deleting = SLOT(5),
                 *priority = SLOT(6), *pclass = SLOT(7), *group = SLOT(11), *queue = SLOT(12), *affinity = SLOT(21),
                 *binding = SLOT(26), *kai_pre = SLOT(29), *ports = SLOT(30);
#undef SLOT
        PyObject *strs[] = {ns, name, node_name, phase, pclass, queue, kai_pre};
        for (size_t j = 0; j < sizeof(strs) / sizeof(strs[0]); j++)
            if (strs[j] == NULL || !PyUnicode_CheckExact(strs[j])) goto decline;
        if (priority == NULL || group == NULL || affinity == NULL || ports == NULL || !PyTuple_CheckExact(ports) ||
            (deleting != Py_True && deleting != Py_False) || (binding != Py_True && binding != Py_False))
            goto decline;
        PyObject *node = none_idx;
        long nv = -1;
        if (PyUnicode_GET_LENGTH(node_name) > 0) {
            node = PyDict_GetItemWithError(nodes, node_name);
            if (node == NULL) {
                if (PyErr_Occurred()) goto fail;
                goto decline; /* the twin's None */
            }
            int overflow = 0;
            if (!PyLong_CheckExact(node) || ((nv = PyLong_AsLongAndOverflow(node, &overflow)) == -1 && PyErr_Occurred()) || overflow) {
                if (PyErr_Occurred()) goto fail;
                goto decline; /* not an index (the twin answers) */
            }
        }
        if (append_new(out[KEYS], join_key(ns, name)) < 0 || PyList_Append(out[NODES], node) < 0) goto fail;
        int terms = 0;
        if (affinity != Py_None) {
            if (!PyDict_CheckExact(affinity)) goto decline;
            if (PyDict_GET_SIZE(affinity) > 0) {
                int a = PyDict_Contains(affinity, S(K_POD_AFFINITY)), b = a ? a : PyDict_Contains(affinity, S(K_POD_ANTI_AFFINITY));
                if (a < 0 || b < 0) goto fail;
                terms = a || b;
            }
        }
        int priced = priority != Py_None || PyUnicode_GET_LENGTH(pclass) == 0; /* a priority, or one from a known class */
        if (!priced && (priced = PySet_Contains(classes, pclass)) < 0) goto fail;
        int run = PyUnicode_Compare(phase, S(V_RUNNING)) == 0;
        int live = group == Py_None && deleting == Py_False && binding == Py_False && nv >= 0 &&
                   (run || PyUnicode_Compare(phase, S(V_PENDING)) == 0) &&
                   priced && PyUnicode_GET_LENGTH(kai_pre) == 0 &&
                   PyTuple_GET_SIZE(ports) == 0 && !terms;
        if (PyErr_Occurred()) goto fail;
        if (append_new(out[live ? LIVE : OTHER], PyLong_FromSsize_t(i)) < 0) goto fail;
        if (live) {
            PyObject *key = PyList_GET_ITEM(out[KEYS], PyList_GET_SIZE(out[KEYS]) - 1);
            if (PyList_Append(out[LIVE_KEYS], key) < 0 || PyList_Append(out[LIVE_NODES], node) < 0 ||
                PyList_Append(out[LIVE_STATUS], run ? running : bound) < 0 ||
                PyList_Append(out[LIVE_QUEUES], PyUnicode_GET_LENGTH(queue) > 0 ? queue : dq) < 0)
                goto fail;
        }
    }
    res = PyTuple_New(NOUT);
    if (res == NULL) goto fail;
    for (int j = 0; j < NOUT; j++) {
        PyTuple_SET_ITEM(res, j, out[j]);
        out[j] = NULL;
    }
    Py_DECREF(none_idx);
    return res;
decline:
    for (int j = 0; j < NOUT; j++) Py_XDECREF(out[j]);
    Py_DECREF(none_idx);
    Py_RETURN_NONE;
fail:
    for (int j = 0; j < NOUT; j++) Py_XDECREF(out[j]);
    Py_DECREF(none_idx);
    return NULL;
}

/* Labels and annotations (absent: NULL) within the metadata limits by metalimits.check_object's quick test: label keys of at most
 * key_len and values of at most value_len characters, annotations of at most notes_bytes
 * as four bytes a character. 0 when the quick test does not settle it (or the map is not
 * a dict of strs): the caller leaves the object to the Python reader. */
static int kp_short_maps(PyObject *labels, PyObject *ann, Py_ssize_t key_len, Py_ssize_t value_len, Py_ssize_t notes_bytes) {
    PyObject *k, *v;
    Py_ssize_t pos = 0, chars = 0;
    if (labels != NULL && labels != Py_None) {
        if (!PyDict_CheckExact(labels)) return 0;
        while (PyDict_Next(labels, &pos, &k, &v))
            if (!PyUnicode_CheckExact(k) || !PyUnicode_CheckExact(v) || PyUnicode_GET_LENGTH(k) > key_len ||
                PyUnicode_GET_LENGTH(v) > value_len)
                return 0;
    }
    if (ann != NULL && ann != Py_None) {
        if (!PyDict_CheckExact(ann)) return 0;
        pos = 0;
        while (PyDict_Next(ann, &pos, &k, &v)) {
            if (!PyUnicode_CheckExact(k) || !PyUnicode_CheckExact(v)) return 0;
            chars += PyUnicode_GET_LENGTH(k) + PyUnicode_GET_LENGTH(v); /* (each below the object's bytes) */
        }
        if (notes_bytes < 0 || chars > notes_bytes / 4) return 0; /* (a negative limit: C division truncates towards 0) */
    }
    return 1;
}

/* kube._controlled: owners (a pod's metadata.ownerReferences; NULL when absent) hold
 * its controller (controller: true) of a kind in DEFAULT_SPREAD_OWNERS. 1 yes, 0 no, -1 error. */
static int kp_controlled(PyObject *owners) {
    if (owners == NULL || !PyList_Check(owners)) return 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(owners); i++) {
        PyObject *o = PyList_GET_ITEM(owners, i), *ctl, *kind;
        if (!PyDict_Check(o)) continue;
        if (kp_get(o, K_CONTROLLER, &ctl) < 0 || kp_get(o, K_KIND, &kind) < 0) return -1;
        if (ctl != Py_True || kind == NULL || !PyUnicode_Check(kind)) continue;
        for (int k = V_REPLICA_SET; k <= V_REPLICATION_CONTROLLER; k++) {
            int eq = PyUnicode_Compare(kind, S(k));
            if (eq == -1 && PyErr_Occurred()) return -1;
            if (eq == 0) return 1;
        }
    }
    return 0;
}

/* A pod read_objects' run (kube_pods) and the text reader take in C: on a node (node a
 * non-empty str), or on none and not controlled by a DEFAULT_SPREAD_OWNERS controller
 * (owners: its ownerReferences, NULL when absent; read_pod counts those for default
 * spreading); labels and annotations within check_object's quick test, no pod
 * (anti-)affinity for read_pod to check. 1 yes, 0 no (the Python loop reads it), -1 error. */
static int kp_runnable(PyObject *node, PyObject *owners, PyObject *labels, PyObject *ann, PyObject *affinity, Py_ssize_t key_len,
                       Py_ssize_t value_len, Py_ssize_t notes_bytes) {
    if (node != NULL && node != Py_None && !PyUnicode_CheckExact(node)) return 0;
    if (node == NULL || node == Py_None || PyUnicode_GET_LENGTH(node) == 0) { /* (read_pod counts default spreading) */
        int controlled = kp_controlled(owners);
        if (controlled != 0) return controlled < 0 ? -1 : 0;
    }
    int quick = kp_short_maps(labels, ann, key_len, value_len, notes_bytes);
    if (quick <= 0) return quick;
    if (affinity != NULL && PyDict_CheckExact(affinity)) {
        PyObject *a, *b;
        if (kp_get(affinity, K_POD_AFFINITY, &a) < 0 || kp_get(affinity, K_POD_ANTI_AFFINITY, &b) < 0) return -1;
        if ((a != NULL && a != Py_None) || (b != NULL && b != Py_None)) return 0; /* (read_pod checks them) */
    }
    return 1;
}

/* kube_pods(objects, start, pods, (key_len, value_len, notes_bytes)): what read_objects
 * does for objects[start], objects[start + 1], ... ((object, pointer) pairs) while each is
 * a v1 Pod kp_runnable takes (on a node, or on none and not controlled by a spreading
 * controller) whose metadata passes check_object's quick test, whose affinity has
 * no pod (anti-)affinity and which kube_pod reads: its draft appended to pods. Returns the
 * index of the first object it left (len(objects) when none), for the Python loop to read
 * one by one. */
static PyObject *kube_pods(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *objs, *pods;
    Py_ssize_t i, key_len, value_len, notes_bytes;
    if (!PyArg_ParseTuple(args, "O!nO!(nnn)", &PyList_Type, &objs, &i, &PyList_Type, &pods, &key_len, &value_len, &notes_bytes))
        return NULL;
    if (i < 0) i = 0;
    for (; KP.ready && i < PyList_GET_SIZE(objs); i++) {
        PyObject *pair = PyList_GET_ITEM(objs, i), *o, *x, *meta, *spec;
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) break;
        o = PyTuple_GET_ITEM(pair, 0);
        if (!PyDict_CheckExact(o)) break;
        PyObject *api;
        if (kp_get(o, K_API_VERSION, &api) < 0 || kp_get(o, K_KIND, &x) < 0) return NULL;
        if (api == NULL || !PyUnicode_CheckExact(api) || PyUnicode_Compare(api, S(V_V1)) != 0) break;
        if (x == NULL || !PyUnicode_CheckExact(x) || PyUnicode_Compare(x, S(V_POD)) != 0) break;
        if (kp_get(o, K_METADATA, &meta) < 0 || kp_get(o, K_SPEC, &spec) < 0) return NULL;
        if (meta == NULL || !PyDict_CheckExact(meta) || spec == NULL || !PyDict_CheckExact(spec)) break;
        PyObject *labels, *ann, *node, *affinity, *owners;
        if (kp_get(meta, K_LABELS, &labels) < 0 || kp_get(meta, K_ANNOTATIONS, &ann) < 0 ||
            kp_get(spec, K_NODE_NAME, &node) < 0 || kp_get(spec, K_AFFINITY, &affinity) < 0 || kp_get(meta, K_OWNERS, &owners) < 0)
            return NULL;
        int runnable = kp_runnable(node, owners, labels, ann, affinity, key_len, value_len, notes_bytes);
        if (runnable <= 0) {
            if (runnable < 0) return NULL;
            break;
        }
        PyObject *pod = kp_pod(o, PyTuple_GET_ITEM(pair, 1), NULL);
        if (pod == NULL) return NULL;
        if (pod == Py_None) {
            Py_DECREF(pod);
            break;
        }
        int failed = PyList_Append(pods, pod);
        Py_DECREF(pod);
        if (failed < 0) return NULL;
    }
    return PyLong_FromSsize_t(i);
}
/* -- kube_objects: Kubernetes objects read from their JSON text ------------------------- */

/* kube_objects(text, max_objects, (key_len, value_len, notes_bytes), loads): the objects
 * of a request's "objects" value (text: its JSON, which msgspec has read as valid JSON;
 * the body's UTF-8 checked), in the order and with the pointers kube.flatten gives: a
 * list of entries, each the PodDraft of a v1 Pod that kube_pods would have read (on a
 * node or not controlled by a spreading controller, metadata within check_object's quick
 * test, no pod affinity, kube_pod reads it), the NodeDraft of a v1 Node in the common
 * shape (kt_node: read_node's draft), or (start, end, pointer) for any other object (its
 * text text[start:end], for the Python loop to parse and read). None to decline the whole text (the body then goes to
 * orjson): anything flatten would refuse or that is not an object or a List, a key or
 * List kind with an escape, a repeated key among those read, more than max_objects
 * objects, nesting past KT_MAX_DEPTH, a number orjson might refuse (three exponent
 * digits or more, more than 300 digits) or a \u escape of a surrogate anywhere.
 *
 * A pod is read without the dict tree orjson would build: its metadata, spec and status
 * keys that _pod_fast reads become small dicts (a value with an escape declines the pod;
 * affinity, tolerations and the rarer spec keys are parsed by loads, as orjson would), its
 * containers' text is remembered with the request kube_pod computed for the first pod
 * that had it (when the spec has no initContainers, overhead nor resources), and the
 * result goes through kp_pod, so the draft is kube_pod's. Equal strings are shared. */

enum { KT_MAX_DEPTH = 512 };

typedef struct { const char *p; Py_ssize_t n; } Span; /* a value's text; p NULL: absent */

/* The bytes that end a plain run inside a string: '"' and '\\'. */
static unsigned char KT_STOP[256];

/* At '"': past the string. *esc: it holds an escape. 0 to decline (a surrogate escape). */
static int kt_string(Cur *c, int *esc) {
    const char *q = c->p + 1;
    *esc = 0;
    const char *quote = memchr(q, '"', (size_t)(c->e - q));
    if (quote != NULL && memchr(q, '\\', (size_t)(quote - q)) == NULL) { /* the common case: no escape */
        c->p = quote + 1;
        return 1;
    }
    for (;;) {
        while (q < c->e && !KT_STOP[(unsigned char)*q]) q++;
        if (q >= c->e) return 0;
        char ch = *q;
        if (ch == '"') break;
        if (ch == '\\') {
            *esc = 1;
            if (q + 1 >= c->e) return 0;
            if (q[1] == 'u') {
                if (c->e - q < 6) return 0;
                char h = q[2];
                if ((h == 'd' || h == 'D') && ((q[3] >= '8' && q[3] <= '9') || (q[3] >= 'a' && q[3] <= 'f') || (q[3] >= 'A' && q[3] <= 'F')))
                    return 0; /* a surrogate: orjson's rules, not ours */
                q += 6;
            } else {
                q += 2;
            }
        }
    }
    c->p = q + 1;
    return 1;
}

/* Past a number; 0 to decline one orjson might read as infinity (and so refuse): its
 * magnitude is below 10^(integer digits + exponent), which must stay within 10^300, with
 * at most 300 digits and an exponent of at most two digits. */
static int kt_number(Cur *c) {
    const char *q = c->p;
    int digits = 0, int_digits = 0, exp_digits = 0, exp = 0, exp_neg = 0, part = 0; /* part: 0 integer, 1 fraction, 2 exponent */
    for (; q < c->e; q++) {
        char ch = *q;
        if (ch >= '0' && ch <= '9') {
            if (part == 2) {
                if (++exp_digits < 3) exp = exp * 10 + (ch - '0');
            } else {
                digits++;
                if (part == 0) int_digits++;
            }
        } else if (ch == '.') {
            part = 1;
        } else if (ch == 'e' || ch == 'E') {
            part = 2;
        } else if (ch == '-' && part == 2) {
            exp_neg = 1;
        } else if (ch != '-' && ch != '+') {
            break;
        }
    }
    c->p = q;
    return digits <= 300 && exp_digits < 3 && int_digits + (exp_neg ? 0 : exp) <= 300;
}

/* Past one value (after whitespace); 0 to decline. */
static int kt_skip(Cur *c) {
    int depth = 0, esc;
    skip_ws(c);
    do {
        if (c->p >= c->e) return 0;
        char ch = *c->p;
        if (ch == '"') {
            if (!kt_string(c, &esc)) return 0;
        } else if (ch == '{' || ch == '[') {
            if (++depth > KT_MAX_DEPTH) return 0;
            c->p++;
        } else if (ch == '}' || ch == ']') {
            depth--;
            c->p++;
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            if (!kt_number(c)) return 0;
        } else if (ch >= 'a' && ch <= 'z') {
            while (c->p < c->e && *c->p >= 'a' && *c->p <= 'z') c->p++;
        } else {
            c->p++; /* , : whitespace */
        }
    } while (depth > 0);
    return 1;
}

/* The value at c as a span, c past it; 0 to decline. */
static int kt_span(Cur *c, Span *v) {
    skip_ws(c);
    const char *start = c->p;
    if (!kt_skip(c)) return 0;
    v->p = start;
    v->n = c->p - start;
    return 1;
}

static int kt_is_null(const Span *v) { return v->p == NULL || (v->n == 4 && memcmp(v->p, "null", 4) == 0); }

/* The spans of the members of the object at c named in names (c past the object); the
 * others are skipped. 0 to decline: not an object, a key with an escape, a name repeated. */
static int kt_fields(Cur *c, const char *const *names, int n, Span *out) {
    for (int j = 0; j < n; j++) out[j].p = NULL;
    if (!take(c, '{')) return 0;
    if (take(c, '}')) return 1;
    for (;;) {
        skip_ws(c);
        const char *k = c->p + 1;
        int esc;
        if (c->p >= c->e || *c->p != '"' || !kt_string(c, &esc) || esc) return 0;
        Py_ssize_t kn = c->p - 1 - k;
        if (!take(c, ':')) return 0;
        int j = 0;
        for (; j < n; j++)
            if (names[j][0] == k[0] && strncmp(names[j], k, (size_t)kn) == 0 && names[j][kn] == '\0') break;
        if (j < n) {
            if (out[j].p != NULL || !kt_span(c, &out[j])) return 0;
        } else if (!kt_skip(c)) {
            return 0;
        }
        if (take(c, '}')) return 1;
        if (!take(c, ',')) return 0;
    }
}

/* The object heads */
enum { H_API, H_KIND, H_ITEMS, H_META, H_SPEC, H_STATUS, NH };
static const char *const HEADS[NH] = {"apiVersion", "kind", "items", "metadata", "spec", "status"};
typedef struct { Span v[NH]; } Heads;
enum { M_NAME, M_NS, M_UID, M_CREATED, M_LABELS, M_ANN, M_DELETED, M_OWNERS, NM };
static const char *const META_KEYS[NM] = {"name", "namespace", "uid", "creationTimestamp", "labels", "annotations",
                                          "deletionTimestamp", "ownerReferences"};
enum { P_NODE, P_PCLASS, P_SCHED, P_POLICY, P_PRIO, P_SELECTOR, P_CONTAINERS, P_AFFINITY, P_TOLERATIONS, P_GATES,
       P_SPREAD, P_CLAIMS, P_SGROUP, P_WREF, P_INIT, P_OVERHEAD, P_RESOURCES, NP };
static const char *const SPEC_KEYS[NP] = {"nodeName", "priorityClassName", "schedulerName", "preemptionPolicy", "priority",
                                          "nodeSelector", "containers", "affinity", "tolerations", "schedulingGates",
                                          "topologySpreadConstraints", "resourceClaims", "schedulingGroup", "workloadRef",
                                          "initContainers", "overhead", "resources"};
static const int SPEC_AT[NP] = {K_NODE_NAME, K_PRIORITY_CLASS, K_SCHEDULER, K_POLICY, K_PRIORITY, K_NODE_SELECTOR,
                                K_CONTAINERS, K_AFFINITY, K_TOLERATIONS, K_GATES, K_SPREAD, K_CLAIMS, K_SCHEDULING_GROUP,
                                K_WORKLOAD_REF, K_INIT_CONTAINERS, K_OVERHEAD, K_RESOURCES};
enum { S_PHASE, S_NOMINATED, NS_ };
static const char *const STATUS_KEYS[NS_] = {"phase", "nominatedNodeName"};

typedef struct {
    Py_ssize_t count, max_objects, key_len, value_len, notes_bytes;
    PyObject *out, *loads, *reqs; /* reqs[k]: the request of containers text k, or None */
    PyObject *allocs; /* allocs[k]: the canonical map of allocatable text k, False when invalid, or None */
    Table strs, containers, alloc_texts;
    const char *text;
} KR;

/* A plain string (no escape) at span v: a new reference (shared when share), NULL without
 * an error to decline. */
static int kt_hex(char h) {
    return h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
}

/* The JSON string at c (after whitespace) as a str, c past it, its escapes decoded as
 * orjson decodes them (shared when share and it has none); NULL without an error to
 * decline (not a string, a surrogate escape). */
static PyObject *kt_string_obj(KR *r, Cur *c, int share) {
    skip_ws(c);
    if (c->p >= c->e || *c->p != '"') return NULL;
    const char *s = c->p + 1;
    int esc;
    if (!kt_string(c, &esc)) return NULL;
    Py_ssize_t n = c->p - 1 - s;
    if (!esc) return share ? shared(&r->strs, s, n, make_str) : make_str(s, n);
    char *buf = PyMem_Malloc((size_t)(n > 0 ? n : 1)); /* an escape never decodes longer than it is written */
    if (buf == NULL) return PyErr_NoMemory();
    Py_ssize_t m = 0;
    const char *q = s, *end = s + n;
    while (q < end) {
        if (*q != '\\') {
            buf[m++] = *q++;
            continue;
        }
        char e = q[1]; /* (kt_string saw a character after each backslash, and 4 after each \u) */
        if (e != 'u') {
            static const char ESCAPED[] = "\"\\/bfnrt", DECODED[] = "\"\\/\b\f\n\r\t";
            const char *at = e == '\0' ? NULL : strchr(ESCAPED, e);
            if (at == NULL) goto decline;
            buf[m++] = DECODED[at - ESCAPED];
            q += 2;
            continue;
        }
        int cp = 0;
        for (int j = 2; j < 6; j++) {
            int h = kt_hex(q[j]);
            if (h < 0) goto decline;
            cp = cp * 16 + h;
        }
        if (cp >= 0xD800 && cp <= 0xDFFF) goto decline;
        if (cp < 0x80) {
            buf[m++] = (char)cp;
        } else if (cp < 0x800) {
            buf[m++] = (char)(0xC0 | (cp >> 6));
            buf[m++] = (char)(0x80 | (cp & 0x3F));
        } else {
            buf[m++] = (char)(0xE0 | (cp >> 12));
            buf[m++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            buf[m++] = (char)(0x80 | (cp & 0x3F));
        }
        q += 6;
    }
    PyObject *o = make_str(buf, m);
    PyMem_Free(buf);
    return o;
decline:
    PyMem_Free(buf);
    return NULL;
}

static PyObject *kt_str(KR *r, const Span *v, int share) {
    Cur c = {v->p, v->p + v->n};
    return kt_string_obj(r, &c, share);
}

/* loads(text of v): the value as orjson reads it. */
static PyObject *kt_loads(KR *r, const Span *v) {
    PyObject *b = PyBytes_FromStringAndSize(v->p, v->n);
    if (b == NULL) return NULL;
    PyObject *o = PyObject_CallOneArg(r->loads, b);
    Py_DECREF(b);
    return o;
}

/* A map of strings to strings at v, keys and values without escapes shared: NULL without
 * an error to decline (another shape, a surrogate escape, a repeated key). */
static PyObject *kt_str_map(KR *r, const Span *v) {
    Cur c = {v->p, v->p + v->n};
    PyObject *d = PyDict_New();
    if (d == NULL) return NULL;
    if (!take(&c, '{')) goto decline;
    if (take(&c, '}')) return d;
    for (;;) {
        PyObject *ko = kt_string_obj(r, &c, 1);
        PyObject *vo = ko == NULL || !take(&c, ':') ? NULL : kt_string_obj(r, &c, 1);
        Py_ssize_t before = PyDict_GET_SIZE(d);
        int rc = vo == NULL ? -1 : PyDict_SetItem(d, ko, vo);
        Py_XDECREF(ko);
        Py_XDECREF(vo);
        if (rc < 0) {
            if (PyErr_Occurred()) { Py_DECREF(d); return NULL; }
            goto decline;
        }
        if (PyDict_GET_SIZE(d) == before) goto decline; /* a repeated key */
        if (take(&c, '}')) return d;
        if (!take(&c, ',')) goto decline;
    }
decline:
    Py_DECREF(d);
    return NULL;
}

/* The draft of the pod whose heads are h at pointer ptr: a new reference, None (a new
 * reference) to leave the pod to the Python reader, NULL on an error. */
static PyObject *kt_pod(KR *r, const Heads *h, PyObject *ptr) {
    PyObject *in[NI] = {NULL}, *spec = NULL, *pod = NULL, *hint = NULL;
    Span m[NM], sp[NP], st[NS_];
    Py_ssize_t slot_k = -1;
    int rc = 1;
#define PUT(at, value) do { if ((in[at] = (value)) == NULL) { rc = PyErr_Occurred() ? -1 : 0; goto out; } } while (0)
    if (kt_is_null(&h->v[H_META])) goto declined;
    Cur c = {h->v[H_META].p, h->v[H_META].p + h->v[H_META].n};
    if (!kt_fields(&c, META_KEYS, NM, m)) goto declined;
    static const int META_IN[NM] = {I_NAME, I_NS, I_UID, I_CREATED, I_LABELS, I_ANN, I_DELETED, -1};
    for (int j = 0; j < NM; j++) {
        if (kt_is_null(&m[j]) || META_IN[j] < 0) continue;
        if (j == M_LABELS || j == M_ANN) PUT(META_IN[j], kt_str_map(r, &m[j]));
        else if (j == M_DELETED) PUT(META_IN[j], (Py_INCREF(Py_True), Py_True)); /* only "is not None" is read */
        else PUT(META_IN[j], kt_str(r, &m[j], j == M_NS || j == M_CREATED));
    }
    int plain = 1; /* the request depends on the containers alone */
    if (!kt_is_null(&h->v[H_SPEC])) {
        c = (Cur){h->v[H_SPEC].p, h->v[H_SPEC].p + h->v[H_SPEC].n};
        if (!kt_fields(&c, SPEC_KEYS, NP, sp)) goto declined;
        static const int SPEC_IN[NP] = {I_NODE, I_PCLASS, I_SCHED, I_POLICY, I_PRIORITY, I_SELECTOR, I_CONTAINERS, I_AFFINITY,
                                        I_TOLERATIONS, I_GATES, I_SPREAD, I_CLAIMS, I_SGROUP, I_WREF, -1, -1, -1};
        plain = kt_is_null(&sp[P_INIT]) && kt_is_null(&sp[P_OVERHEAD]) && kt_is_null(&sp[P_RESOURCES]);
        if (!kt_is_null(&sp[P_CONTAINERS]) && plain) { /* its request: that of the first pod with this text */
            Slot *sl = table_get(&r->containers, sp[P_CONTAINERS].p, sp[P_CONTAINERS].n, make_bytes);
            if (sl == NULL) { rc = PyErr_Occurred() ? -1 : 0; goto out; }
            slot_k = sl->k;
            while (PyList_GET_SIZE(r->reqs) <= slot_k)
                if (PyList_Append(r->reqs, Py_None) < 0) { rc = -1; goto out; }
            if (PyList_GET_ITEM(r->reqs, slot_k) != Py_None) hint = PyList_GET_ITEM(r->reqs, slot_k);
        }
        for (int j = 0; j < NP; j++) {
            if (kt_is_null(&sp[j]) || SPEC_IN[j] < 0 || (j == P_CONTAINERS && hint != NULL)) continue;
            if (j <= P_POLICY) {
                PUT(SPEC_IN[j], kt_str(r, &sp[j], 1));
            } else if (j == P_PRIO) {
                Cur n = {sp[j].p, sp[j].p + sp[j].n};
                long long iv;
                if (!take_int64(&n, &iv) || n.p != n.e) goto declined; /* (another number or type: _pod_fast declines) */
                PUT(SPEC_IN[j], PyLong_FromLongLong(iv));
            } else if (j == P_SELECTOR) {
                PUT(SPEC_IN[j], kt_str_map(r, &sp[j]));
            } else {
                PUT(SPEC_IN[j], kt_loads(r, &sp[j]));
            }
        }
        if (hint == NULL) { /* the request is computed: the spec as far as it reads it */
            if ((spec = PyDict_New()) == NULL) { rc = -1; goto out; }
            static const int REQ_KEYS[] = {P_CONTAINERS, P_INIT, P_OVERHEAD, P_RESOURCES};
            for (size_t j = 0; j < sizeof REQ_KEYS / sizeof *REQ_KEYS; j++) {
                int k = REQ_KEYS[j];
                if (kt_is_null(&sp[k])) continue;
                PyObject *val = k == P_CONTAINERS ? (Py_INCREF(in[I_CONTAINERS]), in[I_CONTAINERS]) : kt_loads(r, &sp[k]);
                if (val == NULL || PyDict_SetItem(spec, S(SPEC_AT[k]), val) < 0) { Py_XDECREF(val); rc = -1; goto out; }
                Py_DECREF(val);
            }
        }
    }
    if (!kt_is_null(&h->v[H_STATUS])) {
        c = (Cur){h->v[H_STATUS].p, h->v[H_STATUS].p + h->v[H_STATUS].n};
        if (!kt_fields(&c, STATUS_KEYS, NS_, st)) goto declined;
        static const int STATUS_IN[NS_] = {I_PHASE, I_NOMINATED};
        for (int j = 0; j < NS_; j++)
            if (!kt_is_null(&st[j])) PUT(STATUS_IN[j], kt_str(r, &st[j], 1));
    }
    /* what kube_pods asks (the owners only of a pod on no node) */
    PyObject *node = in[I_NODE], *owners = NULL;
    if ((node == NULL || (PyUnicode_Check(node) && PyUnicode_GET_LENGTH(node) == 0)) && !kt_is_null(&m[M_OWNERS])) {
        if ((owners = kt_loads(r, &m[M_OWNERS])) == NULL) { rc = -1; goto out; }
    }
    int runnable = kp_runnable(node, owners, in[I_LABELS], in[I_ANN], in[I_AFFINITY], r->key_len, r->value_len, r->notes_bytes);
    Py_XDECREF(owners);
    if (runnable <= 0) { rc = runnable; goto out; }
    pod = kp_draft(in, spec, ptr, hint);
    if (pod == NULL) { rc = -1; goto out; }
    if (pod != Py_None && hint == NULL && slot_k >= 0) { /* remember the request for this containers text */
        PyObject *req = *(PyObject **)((char *)pod + KP.pod_at[8]);
        Py_INCREF(req);
        if (PyList_SetItem(r->reqs, slot_k, req) < 0) { rc = -1; goto out; }
    }
    goto out;
declined:
    rc = 0;
out:
#undef PUT
    for (int j = 0; j < NI; j++) Py_XDECREF(in[j]);
    Py_XDECREF(spec);
    if (rc < 0) {
        Py_XDECREF(pod);
        return NULL;
    }
    if (pod == NULL) Py_RETURN_NONE;
    return pod;
}

/* -- nodes read from the text ---------------------------------------------------------- */

/* A v1 Node in the common shape becomes the NodeDraft kube.read_node makes of it (after
 * check_object), without the dict tree: metadata name (a non-empty string), uid, labels
 * and annotations (strings; within check_object's quick test), spec taints (each an
 * object with a string key and effect, as read_node checks them) and unschedulable (a
 * boolean), status allocatable (an object: each distinct text converted once by the
 * twin's kube._node_allocatable, the map shared, as the native readers share them) and
 * conditions (the last Ready one decides ready; a MemoryPressure, DiskPressure, PIDPressure or
 * NetworkUnavailable one whose status is not "False" makes it not healthy). Anything else (no allocatable, another type
 * anywhere read_node reads, Volcano's oversubscription annotations, a callback declining) leaves the node to the Python
 * reader.
 * kube_node_setup(node_cls, fields, allocatable) hands over the class and the callback once. */

static const char *const NODE_SLOTS[] = {"name", "uid", "labels", "taints", "unschedulable", "ready", "allocatable",
                                         "pointer", "ident", "healthy", "ready_stated"};
enum { ND_NAME, ND_UID, ND_LABELS, ND_TAINTS, ND_UNSCHED, ND_READY, ND_ALLOC, ND_POINTER, ND_IDENT, ND_HEALTHY, ND_STATED,
       NNODE };
enum { KN_KIND, KN_NAME, KN_NODE, KN_KEY, KN_VALUE, KN_EFFECT, KN_NOSCHEDULE, KN_PREFER, KN_NOEXECUTE, KN_NSTR };
static const char *const KN_TEXT[KN_NSTR] = {"kind", "name", "Node", "key", "value", "effect", "NoSchedule",
                                             "PreferNoSchedule", "NoExecute"};

static struct {
    int ready;
    PyTypeObject *cls;
    Py_ssize_t at[NNODE];
    PyObject *allocatable; /* kube._node_allocatable(value): the canonical map, or None */
    PyObject *s[KN_NSTR];
} KN;

static PyObject *kube_node_setup(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *cls, *fields, *allocatable;
    if (!PyArg_ParseTuple(args, "O!O!O", &PyType_Type, &cls, &PyTuple_Type, &fields, &allocatable)) return NULL;
    KN.ready = 0;
    if (PyTuple_GET_SIZE(fields) != NNODE) Py_RETURN_FALSE;
    for (Py_ssize_t j = 0; j < NNODE; j++)
        if (!PyUnicode_Check(PyTuple_GET_ITEM(fields, j)) || PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(fields, j), NODE_SLOTS[j]) != 0)
            Py_RETURN_FALSE;
    int ok = slot_offsets((PyTypeObject *)cls, NODE_SLOTS, NNODE, KN.at);
    if (ok < 0) return NULL;
    if (ok == 0) Py_RETURN_FALSE;
    for (int j = 0; j < KN_NSTR; j++) {
        PyObject *v = PyUnicode_InternFromString(KN_TEXT[j]);
        if (v == NULL) return NULL;
        Py_XSETREF(KN.s[j], v);
    }
    Py_INCREF(cls);
    Py_INCREF(allocatable);
    Py_XSETREF(KN.cls, (PyTypeObject *)cls);
    Py_XSETREF(KN.allocatable, allocatable);
    KN.ready = 1;
    Py_RETURN_TRUE;
}

/* The JSON string at span v equals the ASCII text lit: 1 yes, 0 no (not a string, or
 * another text), -1 on an error, -2 to decline (a string the reader does not decode). */
static int kt_str_is(KR *r, const Span *v, const char *lit) {
    if (kt_is_null(v) || v->p[0] != '"') return 0;
    PyObject *s = kt_str(r, v, 1);
    if (s == NULL) return PyErr_Occurred() ? -1 : -2;
    int eq = PyUnicode_CompareWithASCIIString(s, lit) == 0;
    Py_DECREF(s);
    return eq;
}

/* kt_loads, NULL without an error to decline where orjson refuses the text (its answer
 * for the body comes when the Python reader reads that object). */
static PyObject *kt_loads_or_decline(KR *r, const Span *v) {
    PyObject *o = kt_loads(r, v);
    if (o == NULL && PyErr_ExceptionMatches(PyExc_ValueError)) PyErr_Clear();
    return o;
}

/* read_node's taints: a tuple of the taint objects as orjson makes them (a new reference),
 * NULL without an error to decline (what read_node refuses or reads otherwise). */
static PyObject *kt_taints(KR *r, const Span *v) {
    if (kt_is_null(v)) return PyTuple_New(0);
    if (v->p[0] != '[') return NULL;
    PyObject *list = kt_loads_or_decline(r, v), *out = NULL;
    if (list == NULL) return NULL;
    if (!PyList_CheckExact(list)) goto done;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        PyObject *t = PyList_GET_ITEM(list, i), *key, *value, *effect;
        if (!PyDict_CheckExact(t)) goto done;
        if ((key = PyDict_GetItemWithError(t, KN.s[KN_KEY])) == NULL && PyErr_Occurred()) goto done;
        if ((value = PyDict_GetItemWithError(t, KN.s[KN_VALUE])) == NULL && PyErr_Occurred()) goto done;
        if ((effect = PyDict_GetItemWithError(t, KN.s[KN_EFFECT])) == NULL && PyErr_Occurred()) goto done;
        if (key == NULL || !PyUnicode_CheckExact(key)) goto done;
        if (value != NULL && value != Py_None && !PyUnicode_CheckExact(value)) goto done;
        if (effect == NULL || !PyUnicode_CheckExact(effect)) goto done;
        int known = 0;
        for (int e = KN_NOSCHEDULE; e <= KN_NOEXECUTE; e++)
            known |= PyUnicode_Compare(effect, KN.s[e]) == 0;
        if (!known) goto done;
    }
    out = PyList_AsTuple(list);
done:
    Py_DECREF(list);
    return out;
}

/* read_node's ready, healthy and ready_stated: ready is the status of the last condition of type
 * Ready being "True" (none: ready); healthy, no condition of a pressure type (kube.PRESSURE_CONDITIONS)
 * whose status is not "False"; ready_stated, a condition of type Ready is there. Bit 0 ready, bit 1
 * healthy, bit 2 ready_stated; -1 on an error, -2 to decline. */
static int kt_ready(KR *r, const Span *v) {
    static const char *const COND[2] = {"type", "status"};
    /* Ready first, then the pressure types */
    static const char *const TYPES[5] = {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"};
    if (kt_is_null(v)) return 3;
    Cur c = {v->p, v->p + v->n};
    int ready = 1, healthy = 1, stated = 0;
    if (!take(&c, '[')) return -2;
    if (take(&c, ']')) return 3;
    for (;;) {
        skip_ws(&c);
        if (c.p < c.e && *c.p == '{') {
            Span f[2];
            if (!kt_fields(&c, COND, 2, f)) return -2;
            if (kt_is_null(&f[0]) || f[0].p[0] != '"') goto next; /* (a type that is no string: neither) */
            PyObject *type = kt_str(r, &f[0], 1);
            if (type == NULL) return PyErr_Occurred() ? -1 : -2;
            int k = 0;
            while (k < 5 && PyUnicode_CompareWithASCIIString(type, TYPES[k]) != 0) k++;
            Py_DECREF(type);
            if (k == 0) {
                ready = kt_str_is(r, &f[1], "True");
                if (ready < 0) return ready;
                stated = 1;
            } else if (k < 5) {
                int calm = kt_str_is(r, &f[1], "False");
                if (calm < 0) return calm;
                if (!calm) healthy = 0;
            }
        } else if (!kt_skip(&c)) {
            return -2;
        }
    next:
        if (take(&c, ']')) return ready | (healthy << 1) | (stated << 2);
        if (!take(&c, ',')) return -2;
    }
}

/* The canonical map of the allocatable object at v (borrowed from r->allocs), NULL to
 * decline (with an exception on an error). */
static PyObject *kt_allocatable(KR *r, const Span *v) {
    if (kt_is_null(v) || v->p[0] != '{') return NULL;
    Slot *sl = table_get(&r->alloc_texts, v->p, v->n, make_bytes);
    if (sl == NULL) return NULL;
    Py_ssize_t k = sl->k;
    while (PyList_GET_SIZE(r->allocs) <= k)
        if (PyList_Append(r->allocs, Py_None) < 0) return NULL;
    PyObject *m = PyList_GET_ITEM(r->allocs, k);
    if (m == Py_None) { /* a text not met before: converted by the twin */
        PyObject *value = kt_loads_or_decline(r, v);
        if (value == NULL) return NULL;
        m = PyObject_CallOneArg(KN.allocatable, value);
        Py_DECREF(value);
        if (m == NULL) return NULL;
        if (m == Py_None) {
            Py_DECREF(m);
            m = Py_False;
            Py_INCREF(m);
        }
        if (PyList_SetItem(r->allocs, k, m) < 0) return NULL; /* (steals m) */
    }
    return PyDict_CheckExact(m) ? m : NULL;
}

/* The NodeDraft of the node whose heads are h at pointer ptr: a new reference, None (a new
 * reference) to leave the node to the Python reader, NULL on an error. */
static PyObject *kt_node(KR *r, const Heads *h, PyObject *ptr) {
    enum { NM_NAME, NM_UID, NM_LABELS, NM_ANN, NNM };
    static const char *const META[NNM] = {"name", "uid", "labels", "annotations"};
    enum { NS_TAINTS, NS_UNSCHED, NNS };
    static const char *const SPEC[NNS] = {"taints", "unschedulable"};
    enum { NT_ALLOC, NT_COND, NNT };
    static const char *const STATUS[NNT] = {"allocatable", "conditions"};
    Span m[NNM], sp[NNS], st[NNT];
    PyObject *v[NNODE] = {NULL}, *ann = NULL;
    if (!KN.ready || kt_is_null(&h->v[H_META]) || kt_is_null(&h->v[H_STATUS])) goto declined;
    Cur c = {h->v[H_META].p, h->v[H_META].p + h->v[H_META].n};
    if (!kt_fields(&c, META, NNM, m)) goto declined;
    for (int j = 0; j < NNS; j++) sp[j].p = NULL;
    if (!kt_is_null(&h->v[H_SPEC])) {
        c = (Cur){h->v[H_SPEC].p, h->v[H_SPEC].p + h->v[H_SPEC].n};
        if (!kt_fields(&c, SPEC, NNS, sp)) goto declined;
    }
    c = (Cur){h->v[H_STATUS].p, h->v[H_STATUS].p + h->v[H_STATUS].n};
    if (!kt_fields(&c, STATUS, NNT, st)) goto declined;
#define TAKE(j, value) do { if ((v[j] = (value)) == NULL) goto declined; } while (0)
    if (kt_is_null(&m[NM_NAME]) || m[NM_NAME].p[0] != '"') goto declined;
    TAKE(ND_NAME, kt_str(r, &m[NM_NAME], 0));
    if (PyUnicode_GET_LENGTH(v[ND_NAME]) == 0) goto declined;
    if (kt_is_null(&m[NM_UID])) {
        TAKE(ND_UID, PyUnicode_New(0, 127));
    } else {
        if (m[NM_UID].p[0] != '"') goto declined;
        TAKE(ND_UID, kt_str(r, &m[NM_UID], 0));
    }
    TAKE(ND_LABELS, kt_is_null(&m[NM_LABELS]) ? PyDict_New() : kt_str_map(r, &m[NM_LABELS]));
    if (!kt_is_null(&m[NM_ANN]) && (ann = kt_str_map(r, &m[NM_ANN])) == NULL) goto declined;
    int quick = kp_short_maps(v[ND_LABELS], ann, r->key_len, r->value_len, r->notes_bytes); /* check_object */
    if (quick <= 0) goto declined;
    /* Volcano's oversubscription annotations: read_node keeps them (Draft.oversubscription) */
    if (ann != NULL && (PyDict_GetItemString(ann, "volcano.sh/oversubscription-cpu") != NULL ||
                        PyDict_GetItemString(ann, "volcano.sh/oversubscription-memory") != NULL))
        goto declined;
    TAKE(ND_TAINTS, kt_taints(r, &sp[NS_TAINTS]));
    if (kt_is_null(&sp[NS_UNSCHED]) || (sp[NS_UNSCHED].n == 5 && memcmp(sp[NS_UNSCHED].p, "false", 5) == 0)) {
        v[ND_UNSCHED] = Py_False;
    } else if (sp[NS_UNSCHED].n == 4 && memcmp(sp[NS_UNSCHED].p, "true", 4) == 0) {
        v[ND_UNSCHED] = Py_True;
    } else {
        goto declined;
    }
    Py_INCREF(v[ND_UNSCHED]);
    int ready = kt_ready(r, &st[NT_COND]);
    if (ready < 0) goto declined; /* (-1: with its error set) */
    v[ND_READY] = PyBool_FromLong(ready & 1);
    v[ND_HEALTHY] = PyBool_FromLong((ready >> 1) & 1);
    v[ND_STATED] = PyBool_FromLong((ready >> 2) & 1);
    PyObject *alloc = kt_allocatable(r, &st[NT_ALLOC]);
    if (alloc == NULL) goto declined;
    Py_INCREF(alloc);
    v[ND_ALLOC] = alloc;
    Py_INCREF(ptr);
    v[ND_POINTER] = ptr;
    TAKE(ND_IDENT, PyDict_New());
    if (PyDict_SetItem(v[ND_IDENT], KN.s[KN_KIND], KN.s[KN_NODE]) < 0 || PyDict_SetItem(v[ND_IDENT], KN.s[KN_NAME], v[ND_NAME]) < 0)
        goto declined;
#undef TAKE
    PyObject *out = KN.cls->tp_alloc(KN.cls, 0);
    if (out == NULL) goto declined;
    for (int j = 0; j < NNODE; j++) {
        *(PyObject **)((char *)out + KN.at[j]) = v[j];
        v[j] = NULL;
    }
    Py_XDECREF(ann);
    return out;
declined: /* (or failed: an error is set) */
    for (int j = 0; j < NNODE; j++) Py_XDECREF(v[j]);
    Py_XDECREF(ann);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* base + index as a pointer. */
static PyObject *kt_pointer(PyObject *base, Py_ssize_t i) {
    if (!PyUnicode_IS_ASCII(base)) return PyUnicode_FromFormat("%U%zd", base, i);
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + i % 10);
        i /= 10;
    } while (i > 0);
    Py_ssize_t lb = PyUnicode_GET_LENGTH(base);
    PyObject *out = PyUnicode_New(lb + n, 127);
    if (out == NULL) return NULL;
    Py_UCS1 *p = PyUnicode_1BYTE_DATA(out);
    memcpy(p, PyUnicode_1BYTE_DATA(base), (size_t)lb);
    for (int j = 0; j < n; j++) p[lb + j] = (Py_UCS1)digits[n - 1 - j];
    return out;
}

static int kt_value(KR *r, Cur *c, PyObject *ptr, int depth);

/* The elements of the array at c (each an object), pointers base + i. 1, 0 declined, -1. */
static int kt_array(KR *r, Cur *c, PyObject *base, int depth) {
    if (!take(c, '[')) return 0;
    if (take(c, ']')) return 1;
    for (Py_ssize_t i = 0;; i++) {
        PyObject *ptr = kt_pointer(base, i);
        if (ptr == NULL) return -1;
        int rc = kt_value(r, c, ptr, depth);
        Py_DECREF(ptr);
        if (rc <= 0) return rc;
        if (take(c, ']')) return 1;
        if (!take(c, ',')) return 0;
    }
}

/* One object at c (pointer ptr): a List's items, a pod's draft or a span entry. */
static int kt_value(KR *r, Cur *c, PyObject *ptr, int depth) {
    Heads h;
    skip_ws(c);
    const char *start = c->p;
    if (depth > 8 || c->p >= c->e || *c->p != '{' || !kt_fields(c, HEADS, NH, h.v)) return 0;
    const Span *kind = &h.v[H_KIND];
    const char *ks = NULL;
    Py_ssize_t kn = 0;
    if (kind->p != NULL && kind->n > 0 && kind->p[0] == '"') {
        Cur kc = {kind->p, kind->p + kind->n};
        if (!take_plain_string(&kc, &ks, &kn)) return 0; /* an escape in a kind: orjson decides */
    }
    int is_list = ks != NULL && ((kn == 4 && memcmp(ks, "List", 4) == 0) ||
                                 (kn >= 4 && memcmp(ks + kn - 4, "List", 4) == 0 && h.v[H_ITEMS].p != NULL));
    if (is_list) {
        if (kt_is_null(&h.v[H_ITEMS])) return 1;
        PyObject *base = PyUnicode_FromFormat("%U/items/", ptr);
        if (base == NULL) return -1;
        Cur ic = {h.v[H_ITEMS].p, h.v[H_ITEMS].p + h.v[H_ITEMS].n};
        int rc = kt_array(r, &ic, base, depth + 1);
        Py_DECREF(base);
        return rc;
    }
    if (++r->count > r->max_objects) return 0; /* flatten's limit: orjson and flatten say where */
    PyObject *entry = NULL;
    const Span *api = &h.v[H_API];
    if (ks != NULL && kn == 3 && memcmp(ks, "Pod", 3) == 0 && api->p != NULL && api->n == 4 && memcmp(api->p, "\"v1\"", 4) == 0) {
        entry = kt_pod(r, &h, ptr);
        if (entry == NULL) return -1;
        if (entry == Py_None) Py_CLEAR(entry);
    } else if (ks != NULL && kn == 4 && memcmp(ks, "Node", 4) == 0 && api->p != NULL && api->n == 4 && memcmp(api->p, "\"v1\"", 4) == 0) {
        entry = kt_node(r, &h, ptr);
        if (entry == NULL) return -1;
        if (entry == Py_None) Py_CLEAR(entry);
    }
    if (entry == NULL) entry = Py_BuildValue("(nnO)", (Py_ssize_t)(start - r->text), (Py_ssize_t)(c->p - r->text), ptr);
    if (entry == NULL) return -1;
    int rc = PyList_Append(r->out, entry);
    Py_DECREF(entry);
    return rc < 0 ? -1 : 1;
}

static PyObject *kube_objects(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *text, *loads;
    KR r;
    memset(&r, 0, sizeof r);
    if (!PyArg_ParseTuple(args, "On(nnn)O", &text, &r.max_objects, &r.key_len, &r.value_len, &r.notes_bytes, &loads)) return NULL;
    if (!KP.ready || !PyObject_CheckBuffer(text)) Py_RETURN_NONE;
    Py_buffer view;
    if (PyObject_GetBuffer(text, &view, PyBUF_SIMPLE) < 0) { PyErr_Clear(); Py_RETURN_NONE; } /* e.g. a strided view */
    r.text = view.buf;
    r.loads = loads;
    Cur c = {r.text, r.text + view.len};
    PyObject *result = NULL, *base = NULL;
    if (table_init(&r.strs) < 0 || table_init(&r.containers) < 0 || table_init(&r.alloc_texts) < 0) goto done;
    if ((r.out = PyList_New(0)) == NULL || (r.reqs = PyList_New(0)) == NULL || (r.allocs = PyList_New(0)) == NULL) goto done;
    skip_ws(&c);
    int rc;
    if (c.p < c.e && *c.p == '[') {
        if ((base = PyUnicode_FromString("/objects/")) == NULL) goto done;
        rc = kt_array(&r, &c, base, 0);
    } else {
        if ((base = PyUnicode_FromString("/objects")) == NULL) goto done;
        rc = kt_value(&r, &c, base, 0);
    }
    skip_ws(&c);
    if (rc < 0) goto done;
    if (rc == 0 || c.p != c.e) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    result = r.out;
    r.out = NULL;
done:
    Py_XDECREF(base);
    Py_XDECREF(r.out);
    Py_XDECREF(r.reqs);
    Py_XDECREF(r.allocs);
    table_free(&r.strs);
    table_free(&r.containers);
    table_free(&r.alloc_texts);
    PyBuffer_Release(&view);
    if (result == NULL && !PyErr_Occurred()) Py_RETURN_NONE; /* a table declined */
    return result;
}

#undef S

/* A request body read into one buffer as it arrives (see app/api/common.py read_body):
 * body_buffer(n) is a new bytes object of n bytes not yet written, body_put(buffer, at,
 * piece) copies a piece into it at ``at`` and returns where the next one goes. The buffer is
 * the caller's alone until every byte is written (it is neither hashed nor shared before). */
static PyObject *body_buffer(PyObject *self, PyObject *arg) {
    (void)self;
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "a negative length");
        return NULL;
    }
    return PyBytes_FromStringAndSize(NULL, n);
}

static PyObject *body_put(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *buffer;
    Py_ssize_t at;
    Py_buffer piece;
    if (!PyArg_ParseTuple(args, "O!ny*", &PyBytes_Type, &buffer, &at, &piece)) return NULL;
    if (!PyBytes_CheckExact(buffer) || at < 0 || at > PyBytes_GET_SIZE(buffer) || piece.len > PyBytes_GET_SIZE(buffer) - at) {
        PyBuffer_Release(&piece);
        PyErr_SetString(PyExc_ValueError, "the piece does not fit the buffer");
        return NULL;
    }
    memcpy(PyBytes_AS_STRING(buffer) + at, piece.buf, (size_t)piece.len);
    Py_ssize_t end = at + piece.len;
    PyBuffer_Release(&piece);
    return PyLong_FromSsize_t(end);
}

static PyMethodDef methods[] = {
    {"body_buffer", body_buffer, METH_O, "A new bytes object of n bytes to read a body into (see app/api/common.py)."},
    {"body_put", body_put, METH_VARARGS, "A piece of a body copied into its buffer (see app/api/common.py)."},
    {"record_columns", record_columns, METH_VARARGS, "Attribute columns of typed records (see kernels.py)."},
    {"int_column", int_column, METH_VARARGS, "An int slot of typed records as int64 bytes (see kernels.py)."},
    {"int_and_ordinals", int_and_ordinals, METH_VARARGS,
     "An int slot as int64 bytes and a str slot as ordinals, in one pass (see kernels.py)."},
    {"shared_bytes", shared_bytes, METH_O, "bytes of each buffer, equal contents sharing one object (see kernels.py)."},
    {"index_rows", index_rows, METH_VARARGS, "Keys, node indices and inert rows of a pod block (see kernels.py)."},
    {"read_pods", read_pods, METH_O, "The pods of a native section as columns (see fastjson.py)."},
    {"read_pod_columns", read_pod_columns, METH_O, "The podColumns section's text as orjson reads it, equal values shared (see fastjson.py)."},
    {"first_not_of", first_not_of, METH_VARARGS, "The first item of a list of none of some exact types (see kernels.py)."},
    {"row_ordinals", row_ordinals, METH_VARARGS, "Distinct rows of int columns and each row's ordinal (see kernels.py)."},
    {"kai_fit", kai_fit, METH_VARARGS, "Nodes where a task fits, and the free range on a column (see app/kai/allocate.py)."},
    {"kai_copies", kai_copies, METH_VARARGS, "Whether nodes could hold copies of requests side by side (see app/kai/allocate.py)."},
    {"kai_run", kai_run, METH_VARARGS, "Identical KAI tasks placed one by one on a node set (see app/kai/allocate.py run_py)."},
    {"kube_pod", kube_pod, METH_VARARGS, "The PodDraft of a Pod object in the common shape (see app/ingest/kube.py)."},
    {"kube_pods", kube_pods, METH_VARARGS, "read_objects' loop over a run of common Pods (see app/ingest/kube.py)."},
    {"draft_rows", draft_rows, METH_VARARGS, "Keys, node indices and inert rows of pod drafts (see app/ingest/build.py)."},
    {"kube_objects", kube_objects, METH_VARARGS, "The objects of a request's text: pod drafts and the others' spans (see app/ingest/kube.py)."},
    {"kube_pod_setup", kube_pod_setup, METH_VARARGS, "Hands kube_pod the classes, caches and functions of its twin (see app/ingest/kube.py)."},
    {"kube_node_setup", kube_node_setup, METH_VARARGS, "Hands kube_objects' node reader NodeDraft and its allocatable callback (see app/ingest/kube.py)."},
    {"kai_score", kai_score, METH_VARARGS, "The best-scoring node for a KAI task (see app/kai/allocate.py)."},
    {"untrack_json", untrack_json, METH_O, "A parsed JSON tree's dicts and lists taken off the cyclic GC's lists (see kernels.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_gangplank_kernels", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__gangplank_kernels(void) {
    for (int f = 0; f < NF; f++) FIELD_LEN[f] = (Py_ssize_t)strlen(FIELD[f]);
    KT_STOP['"'] = KT_STOP['\\'] = 1;
    str_dunder_bytes = PyUnicode_InternFromString("__bytes__");
    if (str_dunder_bytes == NULL) return NULL;
    return PyModule_Create(&module);
}
