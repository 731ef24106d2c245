/* Block addressing and virtual-rank orders (see blocks.h). All offsets are
 * MPI_Aint: count x rank x extent passes 2^31 for legal calls. */
#include <stdlib.h>
#include "blocks.h"

static int is_scatter(cx_coll c)
{
    return (cx_coll_shape(c) & CX_SEND_AT_ROOT) != 0;
}

cx_piece cx_all_block(const cx_args *a, int i)
{
    cx_piece p;
    if (is_scatter(a->coll)) {
        MPI_Aint disp = a->scounts ? a->sdispls[i] : (MPI_Aint)i * a->scount;
        p.count = a->scounts ? a->scounts[i] : a->scount;
        p.type = a->stype;
        p.buf = (char *)a->sbuf + disp * cx_type_extent(a->stype);
    } else {
        MPI_Aint disp = a->rcounts ? a->rdispls[i] : (MPI_Aint)i * a->rcount;
        p.count = a->rcounts ? a->rcounts[i] : a->rcount;
        p.type = a->rtype;
        p.buf = (char *)a->rbuf + disp * cx_type_extent(a->rtype);
    }
    return p;
}

cx_piece cx_all_range(const cx_args *a, int first, int n)
{
    cx_piece b = cx_all_block(a, first);
    if (a->scounts || a->rcounts) {
        b.count = 0;
        for (int i = first; i < first + n; i++)
            b.count += cx_all_block(a, i).count;
    } else {
        b.count *= n;
    }
    return b;
}

int cx_own_in_place(const cx_args *a)
{
    return is_scatter(a->coll) ? a->rbuf == MPI_IN_PLACE : a->sbuf == MPI_IN_PLACE;
}

cx_piece cx_own_piece(const cx_args *a)
{
    cx_piece p;
    if (cx_own_in_place(a))
        return cx_all_block(a, a->rank);
    if (is_scatter(a->coll)) {
        p.buf = a->rbuf;
        p.count = a->rcount;
        p.type = a->rtype;
    } else {
        p.buf = (char *)a->sbuf;
        p.count = a->scount;
        p.type = a->stype;
    }
    return p;
}

int cx_sched_own_block(const cx_args *a, cx_sched *s)
{
    if (cx_own_in_place(a))
        return MPI_SUCCESS;
    cx_piece own = cx_own_piece(a), mine = cx_all_block(a, a->rank);
    if (is_scatter(a->coll))
        return cx_sched_copy(s, mine.buf, mine.count, mine.type, own.buf, own.count,
                             own.type);
    return cx_sched_copy(s, own.buf, own.count, own.type, mine.buf, mine.count,
                         mine.type);
}

MPI_Count cx_block_bytes(const cx_args *a)
{
    if (a->rank == a->root) {
        cx_piece b = cx_all_block(a, a->root);
        return cx_type_bytes(b.count, b.type);
    }
    cx_piece own = cx_own_piece(a);
    return cx_type_bytes(own.count, own.type);
}

int cx_rank_of(const cx_args *a, int v)
{
    return a->order ? a->order[v] : (v + a->root) % a->size;
}

int cx_vrank_of(const cx_args *a, int rank)
{
    if (!a->order)
        return (rank - a->root + a->size) % a->size;
    for (int v = 0; v < a->size; v++)
        if (a->order[v] == rank)
            return v;
    return -1;
}

int cx_vrange_contiguous(const cx_args *a, int v, int n)
{
    int first = cx_rank_of(a, v);
    for (int j = 1; j < n; j++)
        if (cx_rank_of(a, v + j) != first + j)
            return 0;
    return 1;
}

/* Whether the blocks of virtual ranks [v, v+n) follow each other in the
 * buffer (always for regular collectives; v-collectives' displacements
 * may put them anywhere). */
static int back_to_back(const cx_args *a, int v, int n)
{
    if (!a->scounts && !a->rcounts)
        return 1;
    for (int j = 1; j < n; j++) {
        cx_piece prev = cx_all_block(a, cx_rank_of(a, v + j - 1));
        if (cx_all_block(a, cx_rank_of(a, v + j)).buf !=
            prev.buf + prev.count * cx_type_extent(prev.type))
            return 0;
    }
    return 1;
}

int cx_vrange_piece(const cx_args *a, cx_sched *s, int v, int n, cx_piece *out)
{
    if (n <= 0 || (cx_vrange_contiguous(a, v, n) && back_to_back(a, v, n))) {
        *out = cx_all_range(a, n > 0 ? cx_rank_of(a, v) : 0, n > 0 ? n : 0);
        return MPI_SUCCESS;
    }
    int *lens = malloc((size_t)n * sizeof *lens);
    MPI_Aint *disps = malloc((size_t)n * sizeof *disps);
    cx_piece first = cx_all_block(a, cx_rank_of(a, v));
    char *base = first.buf;
    int err = lens && disps ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int j = 0; j < n && !err; j++) {
        cx_piece b = cx_all_block(a, cx_rank_of(a, v + j));
        lens[j] = (int)b.count;
        disps[j] = b.buf - base;
    }
    MPI_Datatype t = MPI_DATATYPE_NULL;
    if (!err && !(err = PMPI_Type_create_hindexed(n, lens, disps, first.type, &t)))
        err = cx_sched_own_type(s, t);
    free(lens);
    free(disps);
    *out = (cx_piece){.buf = base, .count = err ? 0 : 1, .type = t};
    return err;
}

/* Blocks of at least this many bytes go as one message per run: SMPI
 * packs a non-contiguous message whole into memory it really allocates
 * (rd_topo allgather, p = 240, 256 KiB per rank, nodes alternating
 * between two switches: 24.8 GB of host memory), and an MPI moves large
 * runs as fast in separate messages as in one. */
#define CX_RUN_BYTES 16384

static int vrange_message(const cx_args *a, cx_sched *s, int v, int n, int peer, int recv)
{
    cx_piece p;
    int err = cx_vrange_piece(a, s, v, n, &p);
    if (err)
        return err;
    return recv ? cx_sched_recv(s, p.buf, p.count, p.type, peer)
                : cx_sched_send(s, p.buf, p.count, p.type, peer);
}

int cx_sched_vrange(const cx_args *a, cx_sched *s, int v, int n, int peer, int recv)
{
    if (n <= 0)
        return MPI_SUCCESS;
    cx_piece first = cx_all_block(a, cx_rank_of(a, v));
    if (cx_vrange_contiguous(a, v, n) ||
        cx_type_bytes(first.count, first.type) < CX_RUN_BYTES)
        return vrange_message(a, s, v, n, peer, recv);
    int err = MPI_SUCCESS;
    for (int j = 0, k; j < n && !err; j += k) {
        for (k = 1; j + k < n && cx_rank_of(a, v + j + k) == cx_rank_of(a, v + j) + k; k++)
            ;
        err = vrange_message(a, s, v + j, k, peer, recv);
    }
    return err;
}

int cx_binomial_span(int v, int p)
{
    if (v)
        return v & -v;
    int m = 1;
    while (m < p)
        m <<= 1;
    return m;
}

int cx_binomial_subtree(int v, int p)
{
    int span = cx_binomial_span(v, p);
    return span < p - v ? span : p - v;
}

cx_piece cx_a2a_block(const cx_args *a, int send, int i)
{
    if (send && a->sbuf == MPI_IN_PLACE)
        send = 0;
    const char *buf = send ? a->sbuf : a->rbuf;
    const int *counts = send ? a->scounts : a->rcounts;
    const int *displs = send ? a->sdispls : a->rdispls;
    MPI_Datatype t = send ? a->stype : a->rtype;
    if (a->coll == CX_COLL_ALLTOALL) {
        int n = send ? a->scount : a->rcount;
        return (cx_piece){cx_block(buf, i, n, t), n, t};
    }
    if (a->coll == CX_COLL_ALLTOALLV)
        return (cx_piece){(char *)buf + displs[i] * cx_type_extent(t), counts[i], t};
    /* alltoallw: a type per block, displacements in bytes */
    return (cx_piece){(char *)buf + displs[i], counts[i],
                      send ? a->stypes[i] : a->rtypes[i]};
}
