/* Where the runtime's windows get their memory, decided once per runtime
 * and alike on every rank (src/rma/README.md, "Windows that cannot
 * collide").
 *
 * Open MPI 4.x: MPI_Win_allocate takes osc/rdma (priority 101), which
 * puts the windows of a node's ranks in one segment named
 * osc_rdma.<node>.<jobid>.<context id> (osc_rdma_component.c,
 * allocate_state_shared). The two communicators of one MPI_Comm_split
 * get the same context id on disjoint ranks, so when both make windows
 * at once their node leaders open the same file (O_CREAT without
 * O_EXCL): the windows share memory (wrong data), one leader's ftruncate
 * cuts the other's mapping (SIGBUS), one leader unlinks the file before
 * the other's ranks attach (ENOENT, "A system call failed during shared
 * memory initialization"). Open MPI 5.0 adds the leader's pid to the
 * name (open-mpi/ompi#9492, PR 9495). osc/sm, which serves
 * MPI_Win_allocate_shared, names its segment by the creating process
 * (osc_sm.<node>.<jobid>.<vpid>.<context id>): no two communicators can
 * share it. So on one node collx's windows are shared windows; across
 * nodes osc/rdma is safe where it makes no segment (one rank per node)
 * or where no other communicator can make windows on the node at the
 * same time (this one holds all the job's ranks of every node where it
 * has several), or where the user took osc/rdma out (OMPI_MCA_osc);
 * elsewhere there is no safe window and the drop-in runs two-sided. */
#include <stdlib.h>
#include <string.h>
#include "rma.h"

/* On MPICH 4.0 (ch4:ucx) atomics on MPI_Win_allocate memory and loads of
 * it disagreed (updates lost, broadcasts hung: src/rma/README.md); with
 * memory of collx's own and MPI_Win_create they agree. Open MPI needs
 * memory the MPI allocated (its MPI_Win_create windows do not progress
 * passive-target atomics without the target). */
#if defined(MPICH_VERSION)   /* SimGrid's mpi.h defines none */
#define OWN_MEMORY 1
#else
#define OWN_MEMORY 0
#endif

#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
#define RDMA_SEGMENT_BY_CID 1
#else
#define RDMA_SEGMENT_BY_CID 0
#endif

/* Does this process's environment keep osc/rdma out? OMPI_MCA_osc
 * (also what `mpirun --mca osc ...` sets) "^a,b" excludes, "a,b"
 * includes. */
static int rdma_excluded(void)
{
    const char *v = cx_env_system("OMPI_MCA_osc");
    if (!v || !*v)
        return 0;
    int exclude = v[0] == '^';
    const char *p = exclude ? v + 1 : v;
    int named = 0;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == 4 && strncmp(p, "rdma", 4) == 0)
            named = 1;
        p += n + (p[n] == ',');
    }
    return exclude ? named : !named;
}

/* The job's ranks on this node as the launcher told them (Open MPI's
 * mpirun), 0 if unknown. */
static int job_ranks_here(void)
{
    const char *v = cx_env_system("OMPI_COMM_WORLD_LOCAL_SIZE");
    return v ? atoi(v) : 0;
}

int cx_rma_memory(MPI_Comm comm, const char **why)
{
    *why = NULL;
    if (OWN_MEMORY)
        return CX_RMA_MEM_OWN;
    if (!RDMA_SEGMENT_BY_CID)
        return CX_RMA_MEM_ALLOCATE;
    MPI_Comm node;
    int here = 0, p, err;
    PMPI_Comm_size(comm, &p);
    if (!PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node)) {
        PMPI_Comm_size(node, &here);
        PMPI_Comm_free(&node);
    }
    /* [0]: min ranks here (0: unknown), [1]: min "safe with osc/rdma". */
    int safe = here == 1 || rdma_excluded() || (here > 1 && here == job_ranks_here());
    int mine[2] = {here, safe}, all[2];
    if ((err = PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, comm)))
        return -err;
    if (all[0] == p)
        return CX_RMA_MEM_SHARED;   /* one node: osc/sm */
    if (all[1])
        return CX_RMA_MEM_ALLOCATE;
    *why = "Open MPI 4.x's osc/rdma names a node's window segment by the communicator's "
           "context id, which disjoint communicators (the halves of a split) share "
           "(open-mpi/ompi#9492, fixed in 5.0); on a communicator that spans nodes and holds "
           "only part of a node's ranks its windows could collide: two-sided instead (set "
           "OMPI_MCA_osc=^rdma, or use Open MPI 5)";
    return CX_RMA_MEM_NONE;
}

int cx_rma_win_alloc(int memory, MPI_Aint bytes, int unit, MPI_Info info, MPI_Comm comm,
                     void *base, MPI_Win *win)
{
    *win = MPI_WIN_NULL;
    if (memory == CX_RMA_MEM_SHARED)
        return PMPI_Win_allocate_shared(bytes, unit, info, comm, base, win);
    if (memory == CX_RMA_MEM_ALLOCATE)
        return PMPI_Win_allocate(bytes, unit, info, comm, base, win);
    if (memory != CX_RMA_MEM_OWN)
        return MPI_ERR_UNSUPPORTED_OPERATION;
    void *mem = calloc(1, bytes > 0 ? (size_t)bytes : 1);
    if (!mem)
        return MPI_ERR_NO_MEM;
    int err = PMPI_Win_create(mem, bytes, unit, info, comm, win);
    if (err) {
        free(mem);
        *win = MPI_WIN_NULL;
        return err;
    }
    *(void **)base = mem;
    return MPI_SUCCESS;
}

void cx_rma_win_free(MPI_Win *win, void *base)
{
    if (*win == MPI_WIN_NULL)
        return;
    PMPI_Win_free(win);
    if (OWN_MEMORY)
        free(base);
}
