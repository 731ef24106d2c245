/* The root of an erroneous gatherv/scatterv: its counts contradict the
 * tree that the ranks built from their own sizes (the construction), so
 * the replay of its counts would wait for messages nobody sends, or leave
 * ranks waiting for data. It serves the built tree instead, from scratch
 * memory: its tree children are known with their sizes; the subtrees that
 * go directly to the root are only counted (nd), so the root takes nd
 * messages from any rank: in a gather their data, in a scatter their
 * requests (tuw_ready), each answered with as many bytes as asked. The
 * call's tag is its own, so nothing else matches. The caller returns
 * MPI_ERR_TRUNCATE; the data is undefined, as after any erroneous call. */
#include "tuw.h"

typedef struct directs {
    MPI_Comm comm;
    int tag, scatter;
    int left;              /* direct messages not yet seen */
    int n;                 /* requests posted */
    MPI_Request *req;
    MPI_Status *st;        /* MPICH's MPI_STATUSES_IGNORE upsets GCC's checks */
    long long ready[TUW_READY_LEN];
} directs;

/* The next direct message, if one is there: its data (gather) is
 * received into scratch; its request (scatter) is answered from scratch. */
static int take_one(cx_sched *s, directs *x, int *flag)
{
    MPI_Status st;
    int err = PMPI_Iprobe(MPI_ANY_SOURCE, x->tag, x->comm, flag, &st);
    if (err || !*flag)
        return err;
    int n = 0;
    long long bytes;
    if (x->scatter) {
        err = PMPI_Recv(x->ready, TUW_READY_LEN, MPI_LONG_LONG, st.MPI_SOURCE, x->tag, x->comm,
                        MPI_STATUS_IGNORE);
        bytes = x->ready[2];
    } else {
        err = PMPI_Get_count(&st, MPI_BYTE, &n);
        bytes = n;
    }
    x->left--;
    char *buf = err ? NULL : cx_sched_alloc(s, (size_t)(bytes > 0 ? bytes : 1));
    if (!buf)
        return err ? err : MPI_ERR_NO_MEM;
    /* Pieces above INT_MAX bytes are not possible here: a direct subtree
     * of the root carries at most what the root's buffer could hold. */
    err = x->scatter ? PMPI_Isend(buf, (int)bytes, MPI_BYTE, st.MPI_SOURCE, x->tag, x->comm,
                                  &x->req[x->n])
                     : PMPI_Irecv(buf, (int)bytes, MPI_BYTE, st.MPI_SOURCE, x->tag, x->comm,
                                  &x->req[x->n]);
    x->n += err == MPI_SUCCESS;
    return err;
}

static int poll_directs(cx_sched *s, void *ctx, int *done)
{
    directs *x = ctx;
    int err = MPI_SUCCESS, flag = 1, all = 0;
    while (x->left > 0 && flag && !err)
        err = take_one(s, x, &flag);
    if (!err && x->n)
        err = PMPI_Testall(x->n, x->req, &all, x->st);
    else
        all = 1;
    *done = err || (x->left == 0 && all);
    return err;
}

int tuw_emit_erroneous_root(cx_sched *s, const tuw_plan *built, int scatter)
{
    int err = MPI_SUCCESS;
    for (int c = 0; c < built->nchild && !err; c++) {
        const tuw_edge *e = &built->child[c];
        char *tmp = cx_sched_alloc(s, (size_t)(e->bytes > 0 ? e->bytes : 1));
        if (!tmp)
            return MPI_ERR_NO_MEM;
        err = scatter ? cx_sched_send(s, tmp, e->bytes, MPI_PACKED, e->peer)
                      : cx_sched_recv(s, tmp, e->bytes, MPI_PACKED, e->peer);
    }
    int nd = (int)built->final.nd;
    if (err || nd == 0)
        return err;
    /* After the tree children's messages (their receives are posted
     * then), so the probe sees direct messages only. */
    if ((err = cx_sched_barrier(s)))
        return err;
    directs *x = cx_sched_alloc(s, sizeof *x);
    MPI_Request *req = cx_sched_alloc(s, sizeof *req * (size_t)nd);
    MPI_Status *st = cx_sched_alloc(s, sizeof *st * (size_t)nd);
    if (!x || !req || !st)
        return MPI_ERR_NO_MEM;
    *x = (directs){.comm = s->comm, .tag = s->tag, .scatter = scatter, .left = nd,
                   .req = req, .st = st};
    return cx_sched_poll(s, poll_directs, x);
}
