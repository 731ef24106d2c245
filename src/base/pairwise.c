/* Pairwise-exchange alltoallv: in round k rank r sends to r+k and receives
 * from r-k, so each round is one exchange per rank. With MPI_IN_PLACE the
 * receive buffer is first packed aside, since a block can be overwritten
 * before the round that sends it. */
#include "blocks.h"

int cx_base_alltoallv_pairwise(const cx_args *a, cx_sched *s)
{
    int p = a->size, r = a->rank, err = MPI_SUCCESS;
    MPI_Aint rext = cx_type_extent(a->rtype), sext;
    const char *sbuf = a->sbuf;
    const int *scounts = a->scounts, *sdispls = a->sdispls;
    MPI_Datatype stype = a->stype;
    int *packed_displs = NULL;
    if (a->sbuf == MPI_IN_PLACE) {
        size_t total = 0;
        for (int i = 0; i < p; i++)
            total += cx_type_bytes(a->rcounts[i], a->rtype);
        char *tmp = cx_sched_alloc(s, total);
        int *cnt = cx_sched_alloc(s, 2 * (size_t)p * sizeof(int));
        if (!tmp || !cnt)
            return MPI_ERR_NO_MEM;
        packed_displs = cnt + p;
        size_t off = 0;
        for (int i = 0; i < p && !err; i++) {
            cnt[i] = (int)cx_type_bytes(a->rcounts[i], a->rtype);
            packed_displs[i] = (int)off;
            err = cx_sched_copy(s, (char *)a->rbuf + a->rdispls[i] * rext,
                                a->rcounts[i], a->rtype, tmp + off, cnt[i], MPI_PACKED);
            off += (size_t)cnt[i];
        }
        sbuf = tmp;
        scounts = cnt;
        sdispls = packed_displs;
        stype = MPI_PACKED;
        if (!err)
            err = cx_sched_barrier(s);
    }
    sext = stype == MPI_PACKED ? 1 : cx_type_extent(stype);
    for (int k = 0; k < p && !err; k++) {
        int to = (r + k) % p, from = (r - k + p) % p;
        const char *out = sbuf + (MPI_Aint)sdispls[to] * sext;
        char *in = (char *)a->rbuf + (MPI_Aint)a->rdispls[from] * rext;
        if (k == 0) {
            if (a->sbuf != MPI_IN_PLACE)
                err = cx_sched_copy(s, out, scounts[r], stype, in, a->rcounts[r],
                                    a->rtype);
            continue;
        }
        if (!(err = cx_sched_send(s, out, scounts[to], stype, to)) &&
            !(err = cx_sched_recv(s, in, a->rcounts[from], a->rtype, from)))
            err = cx_sched_barrier(s);
    }
    return err;
}
