/* The message size the COLLX_STATS profile gives a call of a v- or
 * w-collective (issue 52): bytes per rank as collbench's -m means them
 * for that collective, which sets every count to -m's elements (per pair
 * for alltoallv/w, the result block for reduce_scatter), so that the
 * tuner can measure the profile's class there. Here: the mean block of
 * the counts this rank holds.
 *
 * Only the profile uses it. The rules cannot (a v-collective's rules hold
 * for any size: not every rank knows the counts), so ranks need not agree
 * on it, and where only some ranks know the counts they may not:
 * allgatherv and reduce_scatter give every rank every count, so every
 * rank says the same; a gatherv's or scatterv's root averages the counts,
 * the others give their own block; in alltoallv/w each rank averages what
 * it sends and receives. With equal counts every rank says collbench's
 * -m; with uneven ones a call may count in the classes of several rows. */
#include "stats.h"

static long long mean(long long total, int n)
{
    return n > 0 ? total / n : 0;
}

long long cx_v_msg_size(const cx_args *a, int rank, int p)
{
    int root = rank == a->root, in_place = a->sbuf == MPI_IN_PLACE;
    switch (a->coll) {
    case CX_COLL_GATHERV:
        return root ? mean(cx_payload_v(a->rcounts, p, a->rtype), p)
                    : cx_payload_bytes(a->scount, a->stype);
    case CX_COLL_SCATTERV:
        return root ? mean(cx_payload_v(a->scounts, p, a->stype), p)
                    : cx_payload_bytes(a->rcount, a->rtype);
    case CX_COLL_ALLGATHERV:
    case CX_COLL_REDUCE_SCATTER:
        return mean(cx_payload_v(a->rcounts, p, a->rtype), p);
    case CX_COLL_ALLTOALLV: {
        long long recv = cx_payload_v(a->rcounts, p, a->rtype);
        return mean(recv + (in_place ? recv : cx_payload_v(a->scounts, p, a->stype)), 2 * p);
    }
    case CX_COLL_ALLTOALLW: {
        long long recv = cx_payload_w(a->rcounts, a->rtypes, p);
        return mean(recv + (in_place ? recv : cx_payload_w(a->scounts, a->stypes, p)), 2 * p);
    }
    default:   /* the others have one size (cx_rules_msg_size_of) */
        return 0;
    }
}
