/* CX_Comm_reorder: the paper's reordered communicator, for users who want
 * the renumbering itself (the topo algorithms do not renumber); and what
 * learning the topology cost (CX_Topo_cost, for bench/topo_cost). */
#include "collx_tools.h"
#include "topo.h"

int CX_Comm_reorder(MPI_Comm comm, const char *mapping, MPI_Comm *newcomm)
{
    int heuristic, kind, inter = 0, err;
    if (!newcomm)
        return cx_error(comm, MPI_ERR_ARG, "CX_Comm_reorder: newcomm is NULL");
    *newcomm = MPI_COMM_NULL;
    if (comm == MPI_COMM_NULL)
        return cx_error(comm, MPI_ERR_COMM, "CX_Comm_reorder: MPI_COMM_NULL");
    if (cx_topo_parse_mapping(mapping, &heuristic, &kind))
        return cx_error(comm, MPI_ERR_ARG, "CX_Comm_reorder: mapping \"%s\" is not "
                        "ring, rd, hier_ring or hier_rd", mapping ? mapping : "(null)");
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return cx_error(comm, MPI_ERR_COMM, "CX_Comm_reorder: an intercommunicator");
    cx_comm *c;
    cx_topo *t;
    if ((err = cx_comm_get(comm, &c)) || (err = cx_comm_quiesce(c)) ||
        (err = cx_topo_get(c, &t)))
        return cx_error(comm, err, "CX_Comm_reorder: cannot learn the distances");
    const int *order = cx_topo_order_with(t, heuristic, kind, 0);
    int v = 0;
    while (order && order[v] != c->rank)
        v++;
    /* Every rank found its place, or none did (same memory on all ranks is
     * not guaranteed: agree first). */
    int ok = order != NULL, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c->priv);
    if (!all)
        return cx_error(comm, MPI_ERR_NO_MEM, "CX_Comm_reorder: out of memory");
    if ((err = PMPI_Comm_split(comm, 0, v, newcomm)))
        return cx_error(comm, err, "CX_Comm_reorder: MPI_Comm_split failed");
    return MPI_SUCCESS;
}

int CX_Topo_cost(MPI_Comm comm, int *nodes, int *pairs, double *seconds)
{
    cx_comm *c;
    cx_topo *t;
    int err;
    if (!nodes || !pairs || !seconds)
        return MPI_ERR_ARG;
    if ((err = cx_comm_get(comm, &c)) || (err = cx_comm_quiesce(c)) ||
        (err = cx_topo_get(c, &t)))
        return err;
    *nodes = t->nn;
    *pairs = t->pairs;
    *seconds = t->cost;
    return MPI_SUCCESS;
}
