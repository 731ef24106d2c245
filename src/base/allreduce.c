/* Allreduce by recursive doubling and by Rabenseifner's reduce-scatter +
 * allgather. For p not a power of two both first fold the rem = p - pow2
 * extra ranks into the others and unfold at the end (Thakur, Rabenseifner
 * & Gropp 2005). The near fold pairs the 2 rem lowest ranks (the even one
 * hands its data to the odd one and sits out): neighbours, on one node
 * under block placement. The far fold pairs v with v + pow2 (the one
 * above sits out): the pairs the topology rd mapping puts close (it places
 * x + pow2 next to x), where neighbours sit on different nodes. Recursive
 * doubling with the near fold keeps the canonical order (a group always
 * holds a contiguous range of ranks; the lower range goes on the left),
 * so it serves non-commutative operations; Rabenseifner's and the far
 * fold need a commutative one. Both run on virtual ranks (a->order, e.g.
 * a topology mapping): the reduction then follows the virtual order, so
 * an order needs a commutative operation. */
#include "base.h"

typedef struct fold {
    int pow2, rem, far, newrank;   /* newrank -1: sits out */
} fold;

static fold fold_of(int r, int p, int far)
{
    fold f = {1, 0, far, 0};
    while (f.pow2 * 2 <= p)
        f.pow2 *= 2;
    f.rem = p - f.pow2;
    if (far)
        f.newrank = r < f.pow2 ? r : -1;
    else
        f.newrank = r < 2 * f.rem ? (r % 2 ? r / 2 : -1) : r - f.rem;
    return f;
}

static int real_rank(const cx_args *a, const fold *f, int n)
{
    return cx_rank_of(a, f->far ? n : n < f->rem ? 2 * n + 1 : n + f->rem);
}

/* The virtual rank r folds with (-1: none). */
static int fold_partner(const fold *f, int r)
{
    if (f->far)
        return r < f->rem ? r + f->pow2 : r >= f->pow2 ? r - f->pow2 : -1;
    return r < 2 * f->rem ? r ^ 1 : -1;
}

/* Fold-in: acc holds this rank's data; a rank that stays combines its
 * partner's data into acc (for the near fold the partner is the left one:
 * acc = left op acc, the canonical order). */
static int fold_in(const cx_args *a, cx_sched *s, const fold *f, char **acc, char **tmp)
{
    int r = cx_vrank_of(a, a->rank), partner = fold_partner(f, r), err;
    MPI_Aint n = a->rcount;
    MPI_Datatype t = a->rtype;
    if (partner < 0)
        return MPI_SUCCESS;
    if (f->newrank < 0)
        return cx_sched_send(s, *acc, n, t, cx_rank_of(a, partner));
    if ((err = cx_sched_recv(s, *tmp, n, t, cx_rank_of(a, partner))) ||
        (err = cx_sched_barrier(s)))
        return err;
    return cx_sched_reduce(s, *tmp, *acc, n, t, a->op);
}

/* Fold-out: the result goes back to the ranks that sat out. */
static int fold_out(const cx_args *a, cx_sched *s, const fold *f, const void *res)
{
    int r = cx_vrank_of(a, a->rank), partner = fold_partner(f, r), err;
    if (partner < 0)
        return MPI_SUCCESS;
    if (f->newrank < 0) {
        if ((err = cx_sched_barrier(s)))
            return err;
        return cx_sched_recv(s, a->rbuf, a->rcount, a->rtype, cx_rank_of(a, partner));
    }
    return cx_sched_send(s, res, a->rcount, a->rtype, cx_rank_of(a, partner));
}

static int rdoubling(const cx_args *a, cx_sched *s, int far)
{
    fold f = fold_of(cx_vrank_of(a, a->rank), a->size, far);
    MPI_Aint n = a->rcount;
    MPI_Datatype t = a->rtype;
    /* The partial result starts in rbuf (no copy in place); the first
     * exchange shares the copy's round: a round's local steps run before
     * it posts its messages (sched.h), as the fold's reduction does. */
    char *acc = a->rbuf, *tmp = cx_sched_alloc_typed(s, n, t);
    int err, commutes = cx_op_commutative(a->op);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    if ((err = cx_sched_copy(s, cx_reduce_input(a), n, t, acc, n, t)) ||
        (err = fold_in(a, s, &f, &acc, &tmp)))
        return err;
    for (int mask = 1; f.newrank >= 0 && mask < f.pow2; mask <<= 1) {
        int partner = f.newrank ^ mask, peer = real_rank(a, &f, partner);
        if ((err = cx_sched_send(s, acc, n, t, peer)) ||
            (err = cx_sched_recv(s, tmp, n, t, peer)) || (err = cx_sched_barrier(s)))
            return err;
        /* acc = theirs op acc; a commutative operation may take either
         * order, and then the result stays in rbuf (no copy at the end) */
        if (partner < f.newrank || commutes) {
            err = cx_sched_reduce(s, tmp, acc, n, t, a->op);
        } else {                            /* tmp = acc op theirs */
            err = cx_sched_reduce(s, acc, tmp, n, t, a->op);
            char *x = acc;
            acc = tmp;
            tmp = x;
        }
        if (err)
            return err;
    }
    if (f.newrank >= 0 && acc != (char *)a->rbuf &&
        (err = cx_sched_copy(s, acc, n, t, a->rbuf, n, t)))
        return err;
    return fold_out(a, s, &f, acc);
}

int cx_base_allreduce_rdoubling(const cx_args *a, cx_sched *s)
{
    return rdoubling(a, s, 0);
}

int cx_base_allreduce_rdoubling_far(const cx_args *a, cx_sched *s)
{
    return rdoubling(a, s, 1);
}

/* Rabenseifner: the vector is cut into pow2 blocks; a reduce-scatter by
 * recursive halving leaves one block fully reduced per rank, an allgather
 * by recursive doubling gathers the blocks back. Works on rbuf in place.
 * The halving starts with the nearest partner (distance 1, then 2, 4...:
 * Rabenseifner's and MPICH's order), so the largest halves go between
 * neighbouring ranks, which block placement puts on one node, and only
 * 1/pow2 of the vector per rank crosses the farthest cut; far: it starts
 * with the farthest, with the far fold (for an order that puts far
 * virtual ranks close, the topology rd mapping). The allgather mirrors
 * the halving. */
static void block_range(MPI_Aint n, int pow2, int lo, int hi, MPI_Aint *off,
                        MPI_Aint *len)
{
    MPI_Aint q = n / pow2, r = n % pow2;
    *off = lo * q + (lo < r ? lo : r);
    MPI_Aint end = hi * q + (hi < r ? hi : r);
    *len = end - *off;
}

/* The distance to the partner of halving step i (of log2 pow2). */
static int step_mask(const fold *f, int i)
{
    return f->far ? f->pow2 >> (i + 1) : 1 << i;
}

static int rabenseifner(const cx_args *a, cx_sched *s, int far)
{
    fold f = fold_of(cx_vrank_of(a, a->rank), a->size, far);
    MPI_Aint n = a->rcount, ext = cx_type_extent(a->rtype);
    MPI_Datatype t = a->rtype;
    char *acc = a->rbuf, *tmp = cx_sched_alloc_typed(s, n, t);
    int err, steps = 0;
    if (!tmp)
        return MPI_ERR_NO_MEM;
    while ((1 << steps) < f.pow2)
        steps++;
    if ((a->sbuf != MPI_IN_PLACE &&
         (err = cx_sched_copy(s, a->sbuf, n, t, acc, n, t))) ||
        (err = fold_in(a, s, &f, &acc, &tmp)) || (err = cx_sched_barrier(s)))
        return err;
    int lo = 0, hi = f.pow2;   /* blocks this rank is responsible for */
    for (int i = 0; f.newrank >= 0 && i < steps; i++) {
        int partner = f.newrank ^ step_mask(&f, i), peer = real_rank(a, &f, partner), mid = lo + (hi - lo) / 2;
        int keep_lo = f.newrank < partner ? lo : mid, keep_hi = f.newrank < partner ? mid : hi;
        int give_lo = f.newrank < partner ? mid : lo, give_hi = f.newrank < partner ? hi : mid;
        MPI_Aint koff, klen, goff, glen;
        block_range(n, f.pow2, keep_lo, keep_hi, &koff, &klen);
        block_range(n, f.pow2, give_lo, give_hi, &goff, &glen);
        if ((err = cx_sched_send(s, acc + goff * ext, glen, t, peer)) ||
            (err = cx_sched_recv(s, tmp + koff * ext, klen, t, peer)) ||
            (err = cx_sched_barrier(s)) ||
            (err = cx_sched_reduce(s, tmp + koff * ext, acc + koff * ext, klen, t, a->op)))
            return err;
        lo = keep_lo;
        hi = keep_hi;
    }
    for (int i = steps - 1; f.newrank >= 0 && i >= 0; i--) {
        int partner = f.newrank ^ step_mask(&f, i), peer = real_rank(a, &f, partner);
        /* the partner holds the other half of the range both had before step i */
        int plo = f.newrank < partner ? hi : lo - (hi - lo), phi = plo + (hi - lo);
        MPI_Aint off, len, poff, plen;
        block_range(n, f.pow2, lo, hi, &off, &len);
        block_range(n, f.pow2, plo, phi, &poff, &plen);
        if ((err = cx_sched_barrier(s)) ||
            (err = cx_sched_send(s, acc + off * ext, len, t, peer)) ||
            (err = cx_sched_recv(s, acc + poff * ext, plen, t, peer)))
            return err;
        lo = lo < plo ? lo : plo;
        hi = lo + 2 * (phi - plo);
    }
    if ((err = cx_sched_barrier(s)))
        return err;
    return fold_out(a, s, &f, acc);
}

int cx_base_allreduce_rabenseifner(const cx_args *a, cx_sched *s)
{
    return rabenseifner(a, s, 0);
}

int cx_base_allreduce_rabenseifner_far(const cx_args *a, cx_sched *s)
{
    return rabenseifner(a, s, 1);
}
