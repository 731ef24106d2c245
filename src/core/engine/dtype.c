/* Datatype helpers: 64-bit sizes, big-message types, local copies and
 * reductions of any count (MPI's own local calls take int counts and
 * positions, so large ones go in chunks). */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "dtype.h"

/* Elements per chunk of a local call: keeps every int of MPI in range. */
#define CHUNK_BYTES ((MPI_Count)1 << 30)

/* What collx asks of a type, cached for the MPI's predefined types
 * (MPI_DOUBLE, MPI_BYTE...), whose handles never come back as another
 * type: a call on them then asks the MPI nothing. A derived type's handle
 * may be freed and reused for another type, so derived types are asked
 * every time. Entries are filled once under a lock and published with
 * release (readers load `known` with acquire), never changed: threads
 * read without a lock. */
typedef struct type_info {
    MPI_Datatype t;
    MPI_Count size;
    MPI_Aint lb, extent, tlb, textent;
    int plain;               /* elements back to back from offset 0 */
    atomic_int known;        /* 1: the fields above are set */
} type_info;
#define TYPE_CACHE 64   /* a power of two */
static type_info type_cache[TYPE_CACHE];
static pthread_mutex_t type_mu = PTHREAD_MUTEX_INITIALIZER;

/* Where t's entry starts looking (open addressing, linear probing: an
 * entry is never removed, so the first empty slot ends a search). A
 * handle is an int (MPICH) or a pointer (Open MPI, SMPI). */
static unsigned slot_of(MPI_Datatype t)
{
    uint64_t h = 0;
    memcpy(&h, &t, sizeof t < sizeof h ? sizeof t : sizeof h);
    return (unsigned)((h * 0x9E3779B97F4A7C15ull) >> 58) & (TYPE_CACHE - 1);
}

/* The entry found last: a call asks for the same type several times (its
 * size for the rules, the guard, the copies), one compare instead of a
 * hash. Entries never change once known, so any thread may read it. */
static _Atomic(const type_info *) last_found;

static const type_info *looked_up(MPI_Datatype t);

/* The last entry's compare inline; the search (and its frame) apart. */
static inline const type_info *predefined(MPI_Datatype t)
{
    const type_info *last = atomic_load_explicit(&last_found, memory_order_acquire);
    return last && last->t == t ? last : looked_up(t);
}

static __attribute__((noinline)) const type_info *looked_up(MPI_Datatype t)
{
    unsigned at = slot_of(t);
    for (int n = 0; n < TYPE_CACHE; n++) {
        const type_info *k = &type_cache[(at + (unsigned)n) & (TYPE_CACHE - 1)];
        if (!atomic_load_explicit(&k->known, memory_order_acquire))
            break;
        if (k->t == t) {
            atomic_store_explicit(&last_found, k, memory_order_release);
            return k;
        }
    }
    int ni, na, nd, combiner, init = 0, fini = 1;
    type_info x;
    PMPI_Initialized(&init);   /* the unit tests ask before MPI_Init */
    if (init)
        PMPI_Finalized(&fini);
    if (t == MPI_DATATYPE_NULL || fini ||
        PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) ||
        combiner != MPI_COMBINER_NAMED || PMPI_Type_size_x(t, &x.size) ||
        PMPI_Type_get_extent(t, &x.lb, &x.extent) ||
        PMPI_Type_get_true_extent(t, &x.tlb, &x.textent))
        return NULL;
    type_info *found = NULL;
    pthread_mutex_lock(&type_mu);
    for (int n = 0; n < TYPE_CACHE && !found; n++) {
        type_info *k = &type_cache[(at + (unsigned)n) & (TYPE_CACHE - 1)];
        if (atomic_load_explicit(&k->known, memory_order_relaxed)) {
            if (k->t == t)
                found = k;
            continue;
        }
        k->t = t;
        k->size = x.size;
        k->lb = x.lb;
        k->extent = x.extent;
        k->tlb = x.tlb;
        k->textent = x.textent;
        k->plain = x.lb == 0 && x.tlb == 0 && x.extent == x.size && x.textent == x.size;
        atomic_store_explicit(&k->known, 1, memory_order_release);
        found = k;
    }
    pthread_mutex_unlock(&type_mu);
    return found;   /* NULL: the cache is full, the MPI is asked every time */
}

/* A predefined type whose elements lie back to back from offset 0
 * (found once, when it was cached: every small copy asks). */
static int info_plain(const type_info *k)
{
    return k->plain;
}

int cx_type_bytes_x(MPI_Aint count, MPI_Datatype t, MPI_Count *bytes)
{
    MPI_Count size = 0;
    *bytes = 0;
    if (count == 0)
        return MPI_SUCCESS;
    if (t == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    const type_info *k = predefined(t);
    int err = k ? MPI_SUCCESS : PMPI_Type_size_x(t, &size);
    if (err)
        return err;
    if (k)
        size = k->size;
    if (size == MPI_UNDEFINED || size < 0)
        return MPI_ERR_COUNT;
    *bytes = (MPI_Count)count * size;
    return MPI_SUCCESS;
}

MPI_Count cx_type_bytes(MPI_Aint count, MPI_Datatype t)
{
    const type_info *last = atomic_load_explicit(&last_found, memory_order_acquire);
    if (last && last->t == t)   /* a call's sizes, asked again and again */
        return (MPI_Count)count * last->size;
    MPI_Count b;
    return cx_type_bytes_x(count, t, &b) ? 0 : b;
}

MPI_Aint cx_type_extent(MPI_Datatype t)
{
    const type_info *k = predefined(t);
    MPI_Aint lb, extent;
    if (k)
        return k->extent;
    PMPI_Type_get_extent(t, &lb, &extent);
    return extent;
}

MPI_Count cx_counts_bytes(const int *counts, int n, MPI_Datatype t)
{
    MPI_Aint total = 0;
    for (int i = 0; counts && i < n; i++)
        total += counts[i] > 0 ? counts[i] : 0;
    return total > 0 ? cx_type_bytes(total, t) : 0;
}

void cx_type_extents(MPI_Datatype t, MPI_Aint *extent, MPI_Aint *tlb, MPI_Aint *textent)
{
    const type_info *k = predefined(t);
    MPI_Aint lb;
    if (k) {
        *extent = k->extent;
        *tlb = k->tlb;
        *textent = k->textent;
        return;
    }
    PMPI_Type_get_extent(t, &lb, extent);
    PMPI_Type_get_true_extent(t, tlb, textent);
}

/* Compared by handle alone, never asked of MPI: a rank's argument that
 * the call ignores (a non-root's receive type) may be anything. */
int cx_type_builtin(MPI_Datatype t)
{
    static const MPI_Datatype builtin[] = {
        MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_SHORT,
        MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG,
        MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE,
        MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T,
        MPI_UINT32_T, MPI_UINT64_T, MPI_C_BOOL, MPI_C_FLOAT_COMPLEX,
        MPI_C_DOUBLE_COMPLEX, MPI_AINT, MPI_PACKED, MPI_FLOAT_INT, MPI_DOUBLE_INT,
        MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
#ifdef MPI_INTEGER
        MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_LOGICAL, MPI_CHARACTER,
        MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION,
#endif
    };
    for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
        if (t == builtin[i])
            return 1;
    return 0;
}

int cx_op_builtin(MPI_Op op)
{
    static const MPI_Op builtin[] = {MPI_OP_NULL, MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD,
                                     MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR,
                                     MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE};
    for (size_t i = 0; i < sizeof builtin / sizeof *builtin; i++)
        if (op == builtin[i])
            return 1;
    return 0;
}

int cx_type_plain(MPI_Datatype t)
{
    MPI_Aint lb, ext, tlb, text;
    int size;
    const type_info *k = predefined(t);
    if (k)
        return info_plain(k);
    PMPI_Type_get_extent(t, &lb, &ext);
    PMPI_Type_get_true_extent(t, &tlb, &text);
    PMPI_Type_size(t, &size);
    return lb == 0 && tlb == 0 && ext == size && text == size;
}

int cx_type_big(MPI_Aint count, MPI_Datatype t, MPI_Datatype *out)
{
    const MPI_Aint chunk = (MPI_Aint)1 << 30;
    MPI_Aint q = count / chunk, r = count % chunk;
    MPI_Datatype block;
    if (q > INT_MAX)
        return MPI_ERR_COUNT;
    int err = PMPI_Type_contiguous((int)chunk, t, &block);
    if (err)
        return err;
    int lens[2] = {(int)q, (int)r};
    MPI_Aint disp[2] = {0, q * chunk * cx_type_extent(t)};
    MPI_Datatype types[2] = {block, t};
    err = PMPI_Type_create_struct(r ? 2 : 1, lens, disp, types, out);
    PMPI_Type_free(&block);
    return err;
}

/* A type whose count elements are one dense run of bytes starting at buf. */
static int is_dense(MPI_Datatype t)
{
    return t == MPI_PACKED || cx_type_plain(t);
}

/* Elements of t per chunk (at least one). */
static MPI_Aint chunk_elems(MPI_Datatype t)
{
    MPI_Count size = cx_type_bytes(1, t);
    MPI_Aint n = size > 0 ? (MPI_Aint)(CHUNK_BYTES / size) : 1;
    return n > 0 ? n : 1;
}

/* MPICH refuses a NULL buffer in MPI_Pack/Unpack even for a type of
 * absolute addresses (MPI_BOTTOM): the same bytes, described from the
 * type's true lower bound (*shifted is to be freed). */
static int bottom_view(const void **buf, MPI_Datatype *t, MPI_Datatype *shifted)
{
    MPI_Aint lb, ext, tlb, text, disp;
    MPI_Datatype one;
    int len = 1, err;
    *shifted = MPI_DATATYPE_NULL;
    if (*buf != MPI_BOTTOM)
        return MPI_SUCCESS;
    PMPI_Type_get_extent(*t, &lb, &ext);
    PMPI_Type_get_true_extent(*t, &tlb, &text);
    disp = -tlb;
    if ((err = PMPI_Type_create_struct(1, &len, &disp, t, &one)))
        return err;
    err = PMPI_Type_create_resized(one, lb - tlb, ext, shifted);
    PMPI_Type_free(&one);
    if (!err && !(err = PMPI_Type_commit(shifted))) {
        *buf = (const char *)MPI_BOTTOM + tlb;
        *t = *shifted;
    }
    return err;
}

/* Packs (pack = 1) count elements of t at typed into the bytes at packed,
 * or unpacks them, chunk by chunk. */
static int pack_any(int pack, const void *typed, MPI_Aint count, MPI_Datatype t,
                    void *packed)
{
    MPI_Datatype shifted;
    int err = bottom_view(&typed, &t, &shifted);
    if (err)
        return err;
    MPI_Aint step = chunk_elems(t), ext = cx_type_extent(t);
    MPI_Count size = cx_type_bytes(1, t);
    if (size > INT_MAX)
        err = MPI_ERR_COUNT;    /* one element beyond MPI_Pack's int sizes */
    for (MPI_Aint i = 0; i < count && !err; i += step) {
        MPI_Aint n = count - i < step ? count - i : step;
        char *tp = (char *)typed + i * ext, *pp = (char *)packed + i * size;
        int pos = 0, bytes = (int)(n * size);
        err = pack ? PMPI_Pack(tp, (int)n, t, pp, bytes, &pos, MPI_COMM_SELF)
                   : PMPI_Unpack(pp, bytes, &pos, tp, (int)n, t, MPI_COMM_SELF);
    }
    if (shifted != MPI_DATATYPE_NULL)
        PMPI_Type_free(&shifted);
    return err;
}

int cx_same_piece(const void *a, MPI_Aint acount, MPI_Datatype at, const void *b,
                  MPI_Aint bcount, MPI_Datatype bt)
{
    return a == b && acount == bcount && at == bt;
}

/* Any other copy (cx_copy's fast path apart, so that a small call's
 * copies do not pay this one's frame). */
static __attribute__((noinline)) int copied(const void *src, MPI_Aint scount,
                                            MPI_Datatype st, void *dst, MPI_Aint dcount,
                                            MPI_Datatype dt);

int cx_copy(const void *src, MPI_Aint scount, MPI_Datatype st, void *dst,
            MPI_Aint dcount, MPI_Datatype dt)
{
    /* The common cases (the same predefined type on both sides, or packed
     * bytes to or from one: a node cell) with one look at the type: a
     * small call's copies cost no more than memcpy. */
    MPI_Datatype plain = st == MPI_PACKED ? dt : st;
    const type_info *k = (st == dt || st == MPI_PACKED || dt == MPI_PACKED) &&
                         plain != MPI_PACKED && src != MPI_BOTTOM && dst != MPI_BOTTOM
                             ? predefined(plain) : NULL;
    if (k && info_plain(k)) {
        MPI_Aint bytes = st == MPI_PACKED ? scount : scount * (MPI_Aint)k->size;
        if (src != dst && bytes > 0)
            memcpy(dst, src, (size_t)bytes);
        return MPI_SUCCESS;
    }
    return copied(src, scount, st, dst, dcount, dt);
}

static int copied(const void *src, MPI_Aint scount, MPI_Datatype st, void *dst,
                  MPI_Aint dcount, MPI_Datatype dt)
{
    MPI_Count bytes = cx_type_bytes(scount, st);
    if (bytes == 0 || cx_same_piece(src, scount, st, dst, dcount, dt))
        return MPI_SUCCESS;
    /* Packed bytes of a dense type are its bytes (MPI_BOTTOM excepted:
     * its addresses are absolute). */
    if ((st == MPI_PACKED && dst != MPI_BOTTOM && is_dense(dt)) ||
        (dt == MPI_PACKED && src != MPI_BOTTOM && is_dense(st)) ||
        (st == dt && is_dense(st))) {
        memcpy(dst, src, (size_t)bytes);
        return MPI_SUCCESS;
    }
    if (st == MPI_PACKED)
        return pack_any(0, dst, dcount, dt, (void *)src);
    if (dt == MPI_PACKED)
        return pack_any(1, src, scount, st, dst);
    /* Different layouts with the same signature: through packed bytes
     * (never a message to ourselves, which other threads' or the user's
     * MPI_COMM_SELF traffic could match). */
    void *tmp = malloc((size_t)bytes);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    int err = pack_any(1, src, scount, st, tmp);
    if (!err)
        err = pack_any(0, dst, dcount, dt, tmp);
    free(tmp);
    return err;
}

int cx_reduce_local(const void *in, void *inout, MPI_Aint count, MPI_Datatype t,
                    MPI_Op op)
{
    const type_info *k = predefined(t);
    if (k && count <= CHUNK_BYTES / (k->size > 0 ? k->size : 1))   /* one MPI call */
        return count ? PMPI_Reduce_local(in, inout, (int)count, t, op) : MPI_SUCCESS;
    MPI_Aint step = chunk_elems(t), ext = cx_type_extent(t);
    for (MPI_Aint i = 0; i < count; i += step) {
        MPI_Aint n = count - i < step ? count - i : step;
        int err = PMPI_Reduce_local((const char *)in + i * ext, (char *)inout + i * ext,
                                    (int)n, t, op);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}

int cx_copy_charged(const void *src, MPI_Aint scount, MPI_Datatype st, void *dst,
                    MPI_Aint dcount, MPI_Datatype dt)
{
    int err = cx_copy(src, scount, st, dst, dcount, dt);
    if (CX_SIMULATED)   /* after: its host time is dropped */
        cx_charge_copy(cx_type_bytes(scount, st));
    return err;
}
