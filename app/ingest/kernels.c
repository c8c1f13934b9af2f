/* The ingest kernels in C: passes over every pod of a snapshot, each done in one C pass.
 *
 * Optional (setup.py marks the extension so): app/ingest/kernels.py holds the same
 * functions in Python and uses these only when the extension was built. Each function
 * here answers exactly as its Python twin (tests/test_kernels.py compares them) or, for
 * an input it was not written for, returns None and the twin answers instead. The inputs
 * are Python objects the readers made (lists, str, typed records, msgspec.Raw texts); their
 * contents come from the request, so no pass may be made slower than linear by them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>

/* -- record_columns ------------------------------------------------------------------- */

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
        PyObject *name = PyTuple_GET_ITEM(names, j);
        if (!PyUnicode_CheckExact(name)) Py_RETURN_NONE; /* so the lookup runs no Python code */
        PyObject *d = _PyType_Lookup((PyTypeObject *)cls, name); /* borrowed */
        if (d == NULL || !Py_IS_TYPE(d, &PyMemberDescr_Type)) Py_RETURN_NONE;
        PyMemberDescrObject *md = (PyMemberDescrObject *)d;
        if (!PyType_IsSubtype((PyTypeObject *)cls, PyDescr_TYPE(md))) Py_RETURN_NONE; /* a slot of another layout */
        PyMemberDef *m = md->d_member;
        if (m->type != T_OBJECT_EX && m->type != T_OBJECT) Py_RETURN_NONE;
        offset[j] = m->offset;
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

/* -- shared_bytes --------------------------------------------------------------------- */

typedef struct { const char *p; Py_ssize_t n; Py_hash_t h; PyObject *o; } Slot;

enum { MAX_PROBES = 64 }; /* a longer probe means colliding texts: decline, the twin answers */

static PyObject *str_dunder_bytes; /* "__bytes__", interned at import */

/* The buffer of item, for an item bytes(item) reads through the buffer protocol (not a
 * bytes object, which bytes() returns as it is, nor a type with __bytes__); 0 to decline. */
static int plain_buffer(PyObject *item, Py_buffer *view) {
    if (PyBytes_Check(item) || !PyObject_CheckBuffer(item) || _PyType_Lookup(Py_TYPE(item), str_dunder_bytes) != NULL)
        return 0;
    if (PyObject_GetBuffer(item, view, PyBUF_SIMPLE) < 0) { PyErr_Clear(); return 0; }
    return 1;
}

/* shared_bytes(buffers): bytes(b) for each of buffers (a list of objects with the buffer
 * protocol), one bytes object for all equal contents. Hashed as Python hashes bytes
 * (SipHash, seeded per process), and probes are bounded, so crafted texts cannot make
 * it slower than the twin by more than a constant. */
static PyObject *shared_bytes(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyList_CheckExact(arg)) Py_RETURN_NONE;
    PyObject *items = PyList_AsTuple(arg); /* a buffer export may run Python code that changes the list */
    if (items == NULL) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(items), cap = 64, used = 0, held = 0;
    Py_buffer *views = PyMem_Calloc((size_t)(n ? n : 1), sizeof(Py_buffer));
    Slot *slots = PyMem_Calloc((size_t)cap, sizeof(Slot));
    PyObject *out = PyList_New(n), *result = NULL;
    int declined = 0;
    if (views == NULL || slots == NULL || out == NULL) { if (out != NULL) PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < n; i++) {
        int got = plain_buffer(PyTuple_GET_ITEM(items, i), &views[i]);
        if (got < 0) goto done;
        if (got == 0) { declined = 1; goto done; }
        held = i + 1;
        const char *p = views[i].buf;
        Py_ssize_t len = views[i].len;
        Py_hash_t h = _Py_HashBytes(p, len);
        Py_ssize_t j = (Py_ssize_t)((size_t)h & (size_t)(cap - 1)), probes = 0;
        while (slots[j].o != NULL && !(slots[j].h == h && slots[j].n == len && memcmp(slots[j].p, p, (size_t)len) == 0)) {
            if (++probes > MAX_PROBES) { declined = 1; goto done; }
            j = (j + 1) & (cap - 1);
        }
        PyObject *b = slots[j].o;
        if (b == NULL) {
            b = PyBytes_FromStringAndSize(p, len);
            if (b == NULL) goto done;
            slots[j] = (Slot){p, len, h, b}; /* p stays valid: the views are held until the end */
            if (++used * 2 > cap) {
                Py_ssize_t bigger = cap * 2;
                Slot *grown = PyMem_Calloc((size_t)bigger, sizeof(Slot));
                if (grown == NULL) { PyErr_NoMemory(); goto done; }
                for (Py_ssize_t m = 0; m < cap; m++) {
                    if (slots[m].o == NULL) continue;
                    Py_ssize_t q = (Py_ssize_t)((size_t)slots[m].h & (size_t)(bigger - 1));
                    while (grown[q].o != NULL) q = (q + 1) & (bigger - 1);
                    grown[q] = slots[m];
                }
                PyMem_Free(slots);
                slots = grown;
                cap = bigger;
            }
        }
        Py_INCREF(b);
        PyList_SET_ITEM(out, i, b);
    }
    result = out;
    out = NULL;
done:
    for (Py_ssize_t i = 0; i < held; i++) PyBuffer_Release(&views[i]);
    if (slots != NULL)
        for (Py_ssize_t m = 0; m < cap; m++) Py_XDECREF(slots[m].o);
    PyMem_Free(slots);
    PyMem_Free(views);
    Py_XDECREF(out); /* a list with unset (NULL) items is freed safely */
    Py_DECREF(items);
    if (declined && result == NULL && !PyErr_Occurred()) Py_RETURN_NONE;
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

static PyMethodDef methods[] = {
    {"record_columns", record_columns, METH_VARARGS, "Attribute columns of typed records (see kernels.py)."},
    {"shared_bytes", shared_bytes, METH_O, "bytes of each buffer, equal contents sharing one object (see kernels.py)."},
    {"index_rows", index_rows, METH_VARARGS, "Keys, node indices and inert rows of a pod block (see kernels.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_gangplank_kernels", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__gangplank_kernels(void) {
    str_dunder_bytes = PyUnicode_InternFromString("__bytes__");
    if (str_dunder_bytes == NULL) return NULL;
    return PyModule_Create(&module);
}
