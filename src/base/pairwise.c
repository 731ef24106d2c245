/* Pairwise-exchange alltoallv: in round k rank r sends to r+k and receives
 * from r-k, so each round is one exchange per rank. With MPI_IN_PLACE the
 * receive buffer is first packed aside, since a block can be overwritten
 * before the round that sends it. */
#include "base.h"

int cx_base_alltoallv_pairwise(const cx_args *a, cx_sched *s)
{
    int p = a->size, r = a->rank, err = MPI_SUCCESS;
    MPI_Aint rext = cx_type_extent(a->rtype);
    /* What goes to rank i: (out[i], n[i] elements of t). */
    const char **out = cx_sched_alloc(s, sizeof *out * (size_t)p);
    MPI_Aint *n = cx_sched_alloc(s, sizeof *n * (size_t)p);
    MPI_Datatype t = a->stype;
    if (!out || !n)
        return MPI_ERR_NO_MEM;
    if (a->sbuf == MPI_IN_PLACE) {
        MPI_Aint total = 0;
        for (int i = 0; i < p; i++)
            total += (MPI_Aint)cx_type_bytes(a->rcounts[i], a->rtype);
        char *tmp = cx_sched_alloc(s, (size_t)total);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        t = MPI_PACKED;
        for (int i = 0; i < p && !err; i++) {
            out[i] = tmp;
            n[i] = (MPI_Aint)cx_type_bytes(a->rcounts[i], a->rtype);
            err = cx_sched_copy(s, (char *)a->rbuf + a->rdispls[i] * rext, a->rcounts[i],
                                a->rtype, tmp, n[i], MPI_PACKED);
            tmp += n[i];
        }
        if (!err)
            err = cx_sched_barrier(s);
    } else {
        MPI_Aint sext = cx_type_extent(a->stype);
        for (int i = 0; i < p; i++) {
            out[i] = (const char *)a->sbuf + a->sdispls[i] * sext;
            n[i] = a->scounts[i];
        }
    }
    for (int k = 0; k < p && !err; k++) {
        int to = (r + k) % p, from = (r - k + p) % p;
        char *in = (char *)a->rbuf + a->rdispls[from] * rext;
        if (k == 0) {
            if (a->sbuf != MPI_IN_PLACE)
                err = cx_sched_copy(s, out[r], n[r], t, in, a->rcounts[r], a->rtype);
            continue;
        }
        if (!(err = cx_sched_send(s, out[to], n[to], t, to)) &&
            !(err = cx_sched_recv(s, in, a->rcounts[from], a->rtype, from)))
            err = cx_sched_barrier(s);
    }
    return err;
}
