/* The node layout of a communicator: which node every rank is on, node
 * and leader communicators. Real nodes come from MPI_Comm_split_type
 * (shared memory); fake layouts (COLLX_RANKS_PER_NODE, COLLX_FAKE_NODES)
 * make uneven and interleaved placements testable on one machine. A fake
 * layout places processes by their rank in MPI_COMM_WORLD, as real nodes
 * place processes, so every communicator sees the world's nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "collx_tools.h"
#include "comm.h"
#include "../util/util.h"

/* Fake node id of the process with key r (its rank in MPI_COMM_WORLD:
 * fake_key), or -1 for real nodes. *bad = 1 when the environment cannot
 * be used (then real nodes). */
static int fake_node(int r, int *bad)
{
    const char *list = cx_knob_str(CX_KNOB_FAKE_NODES);
    *bad = 0;
    if (list && *list) {
        if (strncmp(list, "cyclic:", 7) == 0) {
            int n = atoi(list + 7);
            if (n > 0)
                return r % n;
            *bad = 1;
            return -1;
        }
        int len = 1;
        for (const char *s = list; *s; s++)
            len += *s == ',';
        const char *s = list;
        for (int i = 0; i < r % len; i++)
            s = strchr(s, ',') + 1;
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || (*end && *end != ',')) {
            *bad = 1;
            return -1;
        }
        return (int)v;
    }
    return cx_knob_given(CX_KNOB_RANKS_PER_NODE)
               ? r / (int)cx_knob_int(CX_KNOB_RANKS_PER_NODE) : -1;
}

static int fake_layout(void)
{
    const char *list = cx_knob_str(CX_KNOB_FAKE_NODES);
    return (list && *list) || cx_knob_given(CX_KNOB_RANKS_PER_NODE);
}

/* The key of rank `rank` of comm in the fake layouts: its rank in
 * MPI_COMM_WORLD, so that a sub-communicator (a grid's column, one rank
 * per node) keeps its members' nodes. A communicator with a member
 * outside this process's MPI_COMM_WORLD (one merged from MPI_Comm_spawn's
 * intercommunicator: several worlds) has no world ranks to go by, nor has
 * a process without MPI_COMM_WORLD (MPI not initialised by MPI_Init): the
 * rank in comm then. Every member decides alike without talking: in a
 * communicator of several worlds each member sees one outside its own. */
static int fake_key(MPI_Comm comm, int rank)
{
    int init = 0, size, key = rank;
    if (PMPI_Initialized(&init) || !init || PMPI_Comm_size(comm, &size))
        return rank;
    int *in = malloc(sizeof(int) * 2 * (size_t)size);
    MPI_Group g = MPI_GROUP_NULL, w = MPI_GROUP_NULL;
    if (in && !PMPI_Comm_group(comm, &g) && !PMPI_Comm_group(MPI_COMM_WORLD, &w)) {
        int *out = in + size, all = 1;
        for (int r = 0; r < size; r++)
            in[r] = r;
        if (!PMPI_Group_translate_ranks(g, size, in, w, out)) {
            for (int r = 0; r < size; r++)
                all &= out[r] != MPI_UNDEFINED;
            key = all ? out[rank] : rank;
        }
    }
    if (g != MPI_GROUP_NULL)
        PMPI_Group_free(&g);
    if (w != MPI_GROUP_NULL)
        PMPI_Group_free(&w);
    free(in);
    return key;
}

void cx_comm_free_nodes(cx_comm *c)
{
    if (c->leaders != MPI_COMM_NULL)
        PMPI_Comm_free(&c->leaders);
    if (c->column != MPI_COMM_NULL)
        PMPI_Comm_free(&c->column);
    c->column_ready = 0;
    if (c->node != MPI_COMM_NULL)
        PMPI_Comm_free(&c->node);
    free(c->node_of);
    c->node_of = c->local_of = c->node_size = c->node_leader = NULL;
    c->nodes_ready = c->map_ready = 0;
}

/* From the lowest rank of every rank's node: the maps. */
static int fill_maps(cx_comm *c, const int *lowest)
{
    int p = c->size;
    c->node_of = malloc(sizeof(int) * (size_t)p * 4);
    if (!c->node_of)
        return MPI_ERR_NO_MEM;
    c->local_of = c->node_of + p;
    c->node_size = c->local_of + p;
    c->node_leader = c->node_size + p;
    c->nnodes = 0;
    for (int r = 0; r < p; r++) {
        if (lowest[r] == r) {                 /* r leads a new node */
            c->node_leader[c->nnodes] = r;
            c->node_size[c->nnodes] = 0;
            c->node_of[r] = c->nnodes++;
        } else {
            c->node_of[r] = c->node_of[lowest[r]];
        }
        c->local_of[r] = c->node_size[c->node_of[r]]++;
    }
    c->my_node = c->node_of[c->rank];
    c->local_rank = c->local_of[c->rank];
    c->local_size = c->node_size[c->my_node];
    c->max_ranks_per_node = 0;
    c->min_ranks_per_node = p;
    c->uniform = c->consecutive = 1;
    for (int n = 0; n < c->nnodes; n++) {
        if (c->node_size[n] > c->max_ranks_per_node)
            c->max_ranks_per_node = c->node_size[n];
        if (c->node_size[n] < c->min_ranks_per_node)
            c->min_ranks_per_node = c->node_size[n];
        c->uniform &= c->node_size[n] == c->node_size[0];
    }
    for (int r = 1; r < p; r++)   /* a node seen again after another one */
        if (c->local_of[r] != 0 && c->node_of[r] != c->node_of[r - 1])
            c->consecutive = 0;
    return MPI_SUCCESS;
}

/* comm split by node (fake or real) into *node, and every rank's node's
 * lowest rank into lowest[size]: node ids every rank agrees on. */
static int split_nodes(MPI_Comm comm, int rank, MPI_Comm *node, int *lowest)
{
    int err, bad = 0, lowest_mine;
    int fake = fake_layout() ? fake_node(fake_key(comm, rank), &bad) : -1;
    if (bad && rank == 0)
        fprintf(stderr, "collx: COLLX_FAKE_NODES=%s: expected node numbers "
                        "'0,1,0,...' or 'cyclic:k'; using the real nodes\n",
                cx_knob_str(CX_KNOB_FAKE_NODES));
    if (fake >= 0)
        err = PMPI_Comm_split(comm, fake, rank, node);
    else
        err = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
    if (err)
        return err;
    if ((err = PMPI_Allreduce(&rank, &lowest_mine, 1, MPI_INT, MPI_MIN, *node)))
        return err;
    return PMPI_Allgather(&lowest_mine, 1, MPI_INT, lowest, 1, MPI_INT, comm);
}

int cx_nodes_lowest(MPI_Comm comm, int *lowest)
{
    int rank, err;
    MPI_Comm node = MPI_COMM_NULL;
    PMPI_Comm_rank(comm, &rank);
    err = split_nodes(comm, rank, &node, lowest);
    if (node != MPI_COMM_NULL)
        PMPI_Comm_free(&node);
    return err;
}

/* Nodes and ranks on the fullest node, from the lowest rank of each rank's
 * node (lowest[size]; reordered). */
static int by_value(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

void cx_nodes_count(int *lowest, int size, int *nodes, int *max_per_node)
{
    if (size <= 0) {
        *nodes = *max_per_node = 0;
        return;
    }
    qsort(lowest, (size_t)size, sizeof *lowest, by_value);
    *nodes = *max_per_node = 0;
    for (int i = 0, run = 0; i < size; i++) {
        run = i && lowest[i] == lowest[i - 1] ? run + 1 : 1;
        *nodes += run == 1;
        if (run > *max_per_node)
            *max_per_node = run;
    }
}

/* The same for collx's programs (collx_tools.h). */
int CX_Nodes_lowest(MPI_Comm comm, int *lowest) { return cx_nodes_lowest(comm, lowest); }

void CX_Nodes_count(int *lowest, int size, int *nodes, int *max_per_node)
{
    cx_nodes_count(lowest, size, nodes, max_per_node);
}

/* The map of the communicators whose members are MPI_COMM_WORLD's, in any
 * order: learnt on the first of them, then derived for the others with
 * no message (a program's duplicates and splits of the world: HPC
 * Challenge makes five, each an MPI_Comm_split_type and an allgather over
 * all ranks, 0.3 ms of SMPI's time each at 256 ranks). Only where no rank
 * runs MPI_THREAD_MULTIPLE: then every rank meets these communicators'
 * first calls in the program's order and knows the world's map at the
 * same call. world_lowest[w]: an id of w's node (the world rank of one
 * process there, the same for all of them). */
static int *world_lowest;

/* c's ranks in MPI_COMM_WORLD into to_world[c->size], when c has the
 * world's members (in any order); else 0. */
static int as_world(const cx_comm *c, int *to_world)
{
    MPI_Group g, w;
    int same = MPI_UNEQUAL, ok = 0;
    if (!c->one_thread_each || PMPI_Comm_group(c->priv, &g))
        return 0;
    if (!PMPI_Comm_group(MPI_COMM_WORLD, &w)) {
        PMPI_Group_compare(g, w, &same);
        if (same == MPI_IDENT || same == MPI_SIMILAR) {
            int *ranks = malloc(sizeof(int) * (size_t)c->size);
            for (int r = 0; ranks && r < c->size; r++)
                ranks[r] = r;
            ok = ranks && !PMPI_Group_translate_ranks(g, c->size, ranks, w, to_world);
            free(ranks);
        }
        PMPI_Group_free(&w);
    }
    PMPI_Group_free(&g);
    return ok;
}

/* lowest[r] of c from the world's map: its node's lowest rank in c
 * (first[size]: room for c's lowest rank on each node, by node id). */
static void from_world(const cx_comm *c, const int *to_world, int *first, int *lowest)
{
    for (int i = 0; i < c->size; i++)
        first[i] = -1;
    for (int r = 0; r < c->size; r++) {
        int id = world_lowest[to_world[r]];
        if (first[id] < 0)
            first[id] = r;
        lowest[r] = first[id];
    }
}

int cx_comm_node_map(cx_comm *c)
{
    int err = MPI_SUCCESS;
    if (c->map_ready || c->nodes_ready)
        return MPI_SUCCESS;
    int *lowest = malloc(sizeof(int) * (size_t)c->size * 3);
    if (!lowest)
        return MPI_ERR_NO_MEM;
    int *to_world = lowest + c->size;
    int world = as_world(c, to_world);
    if (world && world_lowest) {   /* c->node: made by cx_comm_nodes if wanted */
        from_world(c, to_world, lowest + 2 * c->size, lowest);
    } else {
        err = split_nodes(c->priv, c->rank, &c->node, lowest);
        if (!err && world && (world_lowest = malloc(sizeof(int) * (size_t)c->size)))
            for (int r = 0; r < c->size; r++)   /* in world numbering */
                world_lowest[to_world[r]] = to_world[lowest[r]];
    }
    if (!err)
        err = fill_maps(c, lowest);
    free(lowest);
    c->map_ready = !err;
    return err;
}

int cx_comm_nodes(cx_comm *c)
{
    int err;
    if (c->nodes_ready)
        return MPI_SUCCESS;
    if ((err = cx_comm_node_map(c)))
        return err;
    /* SMPI's split_type ignores the key: order the node by comm rank (a
     * map taken from the world's has no node communicator yet). */
    MPI_Comm ordered;
    if (c->node == MPI_COMM_NULL && fake_layout())
        err = PMPI_Comm_split(c->priv, c->node_leader[c->my_node], c->rank, &c->node);
    else if (c->node == MPI_COMM_NULL)   /* a split of the whole costs more (SMPI) */
        err = PMPI_Comm_split_type(c->priv, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL,
                                   &c->node);
    if (err || (err = PMPI_Comm_split(c->node, 0, c->rank, &ordered)))
        return err;
    if (c->node != MPI_COMM_NULL)
        PMPI_Comm_free(&c->node);
    c->node = ordered;
    PMPI_Comm_set_errhandler(c->node, MPI_ERRORS_RETURN);
    err = PMPI_Comm_split(c->priv, c->local_rank == 0 ? 0 : MPI_UNDEFINED, c->rank,
                          &c->leaders);
    if (err)
        return err;
    if (c->leaders != MPI_COMM_NULL)
        PMPI_Comm_set_errhandler(c->leaders, MPI_ERRORS_RETURN);
    c->nodes_ready = 1;
    return MPI_SUCCESS;
}

int cx_comm_column(cx_comm *c, MPI_Comm *column)
{
    int err;
    *column = MPI_COMM_NULL;
    if ((err = cx_comm_nodes(c)))
        return err;
    if (!c->column_ready) {
        /* key = node: in a full column, rank i is node i's member */
        if ((err = PMPI_Comm_split(c->priv, c->local_rank, c->my_node, &c->column)))
            return err;
        PMPI_Comm_set_errhandler(c->column, MPI_ERRORS_RETURN);
        c->column_ready = 1;
    }
    *column = c->column;
    return MPI_SUCCESS;
}
