/* Per-communicator state, cached as an attribute and freed with the
 * communicator (or at MPI_Finalize for the predefined ones). */
#include <stdlib.h>
#include "cx_internal.h"

static int cx_keyval = MPI_KEYVAL_INVALID;

static void free_if(MPI_Comm *c)
{
    if (*c != MPI_COMM_NULL)
        PMPI_Comm_free(c);
}

static int delete_state(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    cx_comm *c = attr;
    for (int i = 0; i < 8; i++)
        if (c->family[i] && c->family_free[i])
            c->family_free[i](c->family[i]);
    free_if(&c->leaders);
    free_if(&c->node);
    free_if(&c->priv);
    free(c);
    return MPI_SUCCESS;
}

/* The keyval itself lives until MPI_Finalize: freeing it earlier would only
 * mark it, and MPI releases it with the last attribute anyway. */
static int ensure_keyval(void)
{
    if (cx_keyval != MPI_KEYVAL_INVALID)
        return MPI_SUCCESS;
    return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state,
                                   &cx_keyval, NULL);
}

int cx_comm_get(MPI_Comm comm, cx_comm **out)
{
    int err, found = 0;
    cx_comm *c = NULL;
    if ((err = ensure_keyval()))
        return err;
    if ((err = PMPI_Comm_get_attr(comm, cx_keyval, &c, &found)))
        return err;
    if (found) {
        *out = c;
        return MPI_SUCCESS;
    }
    c = calloc(1, sizeof *c);
    if (!c)
        return MPI_ERR_NO_MEM;
    c->priv = c->node = c->leaders = MPI_COMM_NULL;
    if ((err = PMPI_Comm_dup(comm, &c->priv))) {
        free(c);
        return err;
    }
    /* Our own errors come back as codes; we report them on the user's comm. */
    PMPI_Comm_set_errhandler(c->priv, MPI_ERRORS_RETURN);
    PMPI_Comm_rank(c->priv, &c->rank);
    PMPI_Comm_size(c->priv, &c->size);
    /* Rules that key on ranks per node need it on every rank alike; learn
     * it here, where every rank is in the same collective call (before the
     * state is attached: a failure leaves no half-made state behind). */
    if ((cx_rules_need_nodes() && (err = cx_comm_nodes(c))) ||
        (err = PMPI_Comm_set_attr(comm, cx_keyval, c))) {
        delete_state(comm, cx_keyval, c, NULL);
        return err;
    }
    *out = c;
    return MPI_SUCCESS;
}

int cx_comm_next_tag(cx_comm *c)
{
    /* MPI guarantees tags up to 32767; collectives are called in the same
     * order everywhere, so the sequence agrees on all ranks. */
    return (int)(c->tag_seq++ % 32000u) + 1;
}

/* Ranks per node forced by COLLX_RANKS_PER_NODE (0 = use the real nodes). */
static int forced_ranks_per_node(void)
{
    const char *v = getenv("COLLX_RANKS_PER_NODE");
    int k = v ? atoi(v) : 0;
    return k > 0 ? k : 0;
}

int cx_comm_nodes(cx_comm *c)
{
    int err, k = forced_ranks_per_node();
    if (c->nodes_ready)
        return MPI_SUCCESS;
    if (k)
        err = PMPI_Comm_split(c->priv, c->rank / k, c->rank, &c->node);
    else
        err = PMPI_Comm_split_type(c->priv, MPI_COMM_TYPE_SHARED, c->rank,
                                   MPI_INFO_NULL, &c->node);
    if (err)
        return err;
    int node_rank;
    PMPI_Comm_rank(c->node, &node_rank);
    err = PMPI_Comm_split(c->priv, node_rank == 0 ? 0 : MPI_UNDEFINED, c->rank,
                          &c->leaders);
    if (err)
        return err;
    int node_size;
    PMPI_Comm_size(c->node, &node_size);
    if ((err = PMPI_Allreduce(&node_size, &c->max_ranks_per_node, 1, MPI_INT, MPI_MAX,
                              c->priv)))
        return err;
    c->nodes_ready = 1;
    return MPI_SUCCESS;
}
