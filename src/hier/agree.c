/* What the ranks of a v or w collective agree on before it is built.
 *
 * A rank of gatherv, scatterv, alltoallv or alltoallw knows only its own
 * sizes, yet the node's need of the segment and the bands above the
 * budget must come out alike on every rank. Each rank's values are summed
 * over its node, then the leaders take the largest (first nmax values) or
 * the total (the rest) over the nodes, and a node bcast hands that to
 * every rank. A blocking call does this while it is built; a nonblocking
 * one in three rounds of its deferred schedule before it is built
 * (queue.c), so that starting it waits for no other rank, and its builder
 * finds the result here. */
#include "hier.h"

/* The values of the nonblocking call being built on c (queue.c sets
 * them around the build: a communicator's calls are built one at a
 * time, in call order). */
static const hier_values **being_built(cx_comm *c)
{
    hier_queue *q = hier_queue_of(c);
    return q ? &q->agreed : NULL;
}

void hier_values_for_build(cx_comm *c, const hier_values *v)
{
    const hier_values **at = being_built(c);
    if (at)
        *at = v;
}

static int split(const hier_values *v, int part, long long **in, long long **out)
{
    int n = part ? v->n - v->nmax : v->nmax;
    *in = v->node + (part ? v->nmax : 0);
    *out = v->all + (part ? v->nmax : 0);
    return n;
}

/* The three rounds: a node sum, the leaders' max and sum, a node bcast.
 * Each step posts its nonblocking collective, or (blocking) runs the
 * blocking one: a blocking build is itself blocking, and the MPIs' tuned
 * blocking collectives beat their nonblocking twins (src/hier/README.md). */
typedef struct agree_step {
    cx_comm *c;
    hier_values *v;
    int part;       /* the leaders' step: 0 = max, 1 = sum */
    int blocking;
} agree_step;

static int node_sum(cx_sched *s, void *ctx, MPI_Request *req)
{
    (void)s;
    agree_step *x = ctx;
    hier_values *v = x->v;
    *req = MPI_REQUEST_NULL;
    if (v->settled)
        return MPI_SUCCESS;
    return x->blocking ? PMPI_Allreduce(v->mine, v->node, v->n, MPI_LONG_LONG, MPI_SUM,
                                        x->c->node)
                       : PMPI_Iallreduce(v->mine, v->node, v->n, MPI_LONG_LONG, MPI_SUM,
                                         x->c->node, req);
}

static int over_nodes(cx_sched *s, void *ctx, MPI_Request *req)
{
    (void)s;
    agree_step *x = ctx;
    long long *in, *to;
    int n = split(x->v, x->part, &in, &to);
    MPI_Op op = x->part ? MPI_SUM : MPI_MAX;
    *req = MPI_REQUEST_NULL;
    if (!n || x->c->leaders == MPI_COMM_NULL || x->v->settled)
        return MPI_SUCCESS;
    return x->blocking ? PMPI_Allreduce(in, to, n, MPI_LONG_LONG, op, x->c->leaders)
                       : PMPI_Iallreduce(in, to, n, MPI_LONG_LONG, op, x->c->leaders, req);
}

static int node_bcast(cx_sched *s, void *ctx, MPI_Request *req)
{
    (void)s;
    agree_step *x = ctx;
    hier_values *v = x->v;
    *req = MPI_REQUEST_NULL;
    if (v->settled)
        return MPI_SUCCESS;
    return x->blocking ? PMPI_Bcast(v->all, v->n, MPI_LONG_LONG, 0, x->c->node)
                       : PMPI_Ibcast(v->all, v->n, MPI_LONG_LONG, 0, x->c->node, req);
}

static int agree_rounds(cx_sched *s, cx_comm *c, hier_values *v, int blocking)
{
    agree_step *x = cx_sched_alloc(s, sizeof *x * 2);
    int err;
    if (!x)
        return MPI_ERR_NO_MEM;
    x[0] = (agree_step){c, v, 0, blocking};
    x[1] = (agree_step){c, v, 1, blocking};
    if ((err = cx_sched_start(s, node_sum, x)) || (err = cx_sched_barrier(s)) ||
        (err = cx_sched_start(s, over_nodes, &x[0])) ||
        (err = cx_sched_start(s, over_nodes, &x[1])) || (err = cx_sched_barrier(s)))
        return err;
    return cx_sched_start(s, node_bcast, x);
}

int hier_agreed(const cx_args *a, cx_sched *s, hier_values_fn fn, const hier_values **out)
{
    cx_comm *c = a->cc;
    const hier_values **pre = being_built(c);
    if (pre && *pre) {
        *out = *pre;
        return MPI_SUCCESS;
    }
    hier_values *v = cx_sched_alloc(s, sizeof *v);
    int err;
    if (!v)
        return MPI_ERR_NO_MEM;
    *v = (hier_values){0};
    if ((err = cx_comm_nodes(c)) || (err = fn(a, s, v)))
        return err;
    /* the same rounds, each step its blocking collective */
    cx_sched w;
    cx_sched_init(&w, c->priv, 0);
    err = agree_rounds(&w, c, v, 1);
    if (!err)
        err = cx_sched_run(&w);
    cx_sched_free(&w);
    *out = v;
    return err;
}

int hier_values_alloc(cx_sched *s, hier_values *v, int n, int nmax)
{
    /* a persistent call agrees at every start into the same memory */
    long long *m = v->mine && v->n == n ? v->mine
                                        : cx_sched_alloc(s, sizeof(long long) * 3 * (size_t)n);
    if (!m)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < 3 * n; i++)
        m[i] = 0;
    *v = (hier_values){.n = n, .nmax = nmax, .mine = m, .node = m + n, .all = m + 2 * n};
    return MPI_SUCCESS;
}

int hier_agree_steps(cx_sched *s, cx_comm *c, hier_values *v)
{
    return agree_rounds(s, c, v, 0);
}

MPI_Aint hier_agreed_slot(const hier_values *v)
{
    return hier_need_fits((MPI_Aint)v->all[0]) ? (MPI_Aint)v->node[0] : hier_slot_budget();
}

int hier_agreed_segment(const cx_args *a, hier_values_fn fn, MPI_Aint *bytes)
{
    cx_sched w;
    const hier_values *v;
    cx_sched_init(&w, a->cc->priv, 0);
    int err = hier_agreed(a, &w, fn, &v);
    if (!err)
        *bytes = hier_shm_bytes(hier_agreed_slot(v));
    cx_sched_free(&w);
    return err;
}
