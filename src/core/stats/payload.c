/* The payload of a call on the calling rank (COLLX_STATS): the bytes its
 * send side gives plus the bytes its receive side takes, where MPI says
 * they are significant (a gather's receive buffer at the root only; a
 * broadcast's buffer once: sent at the root, received elsewhere). An
 * MPI_IN_PLACE side counts as what it stands for, so a call in place has
 * the payload of the same call out of place (intracommunicators: the
 * caller gives an intercommunicator's calls 0); negative counts count as
 * 0 (the call then fails anyway). */
#include "stats.h"

long long cx_payload_bytes(MPI_Aint count, MPI_Datatype type)
{
    return count > 0 ? (long long)cx_type_bytes(count, type) : 0;
}

/* counts[i] (NULL: not given). */
static long long entry(const int *counts, int i, MPI_Datatype type)
{
    return counts ? cx_payload_bytes(counts[i], type) : 0;
}

long long cx_payload_v(const int *counts, int n, MPI_Datatype type)
{
    return (long long)cx_counts_bytes(counts, n, type);
}

long long cx_payload_w(const int *counts, const MPI_Datatype *types, int n)
{
    long long total = 0;
    for (int i = 0; counts && types && i < n; i++)
        total += cx_payload_bytes(counts[i], types[i]);
    return total;
}

long long cx_call_payload(const cx_args *a, int rank, int p)
{
    int root = rank == a->root, s_ip = a->sbuf == MPI_IN_PLACE, r_ip = a->rbuf == MPI_IN_PLACE;
    long long one_s = cx_payload_bytes(a->scount, a->stype);
    long long one_r = cx_payload_bytes(a->rcount, a->rtype);
    long long send = 0, recv = 0;
    switch (a->coll) {
    case CX_COLL_BARRIER:
        break;
    case CX_COLL_BCAST:
        recv = one_r;
        break;
    case CX_COLL_GATHER:
        send = s_ip && root ? one_r : one_s;
        recv = root ? p * one_r : 0;
        break;
    case CX_COLL_GATHERV:
        send = s_ip && root ? entry(a->rcounts, rank, a->rtype) : one_s;
        recv = root ? cx_payload_v(a->rcounts, p, a->rtype) : 0;
        break;
    case CX_COLL_SCATTER:
        send = root ? p * one_s : 0;
        recv = r_ip && root ? one_s : one_r;
        break;
    case CX_COLL_SCATTERV:
        send = root ? cx_payload_v(a->scounts, p, a->stype) : 0;
        recv = r_ip && root ? entry(a->scounts, rank, a->stype) : one_r;
        break;
    case CX_COLL_ALLGATHER:
        send = s_ip ? one_r : one_s;
        recv = p * one_r;
        break;
    case CX_COLL_ALLGATHERV:
        send = s_ip ? entry(a->rcounts, rank, a->rtype) : one_s;
        recv = cx_payload_v(a->rcounts, p, a->rtype);
        break;
    case CX_COLL_ALLTOALL:
        recv = p * one_r;
        send = s_ip ? recv : p * one_s;
        break;
    case CX_COLL_ALLTOALLV:
        recv = cx_payload_v(a->rcounts, p, a->rtype);
        send = s_ip ? recv : cx_payload_v(a->scounts, p, a->stype);
        break;
    case CX_COLL_ALLTOALLW:
        recv = cx_payload_w(a->rcounts, a->rtypes, p);
        send = s_ip ? recv : cx_payload_w(a->scounts, a->stypes, p);
        break;
    case CX_COLL_REDUCE:
        send = one_r;
        recv = root ? one_r : 0;
        break;
    case CX_COLL_REDUCE_SCATTER:
        send = cx_payload_v(a->rcounts, p, a->rtype);
        recv = entry(a->rcounts, rank, a->rtype);
        break;
    case CX_COLL_REDUCE_SCATTER_BLOCK:
        send = p * one_r;
        recv = one_r;
        break;
    case CX_COLL_ALLREDUCE:
    case CX_COLL_SCAN:
    case CX_COLL_EXSCAN:
        send = recv = one_r;
        break;
    case CX_COLL_COUNT:   /* no default: a new collective must say its payload */
        break;
    }
    return send + recv;
}
