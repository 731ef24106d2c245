/* What collx's own programs (collx_info, collbench, topo_cost) read of
 * the library beyond collx.h: every setting's declaration, where each
 * algorithm is built, the built-in rules, the node layout collx sees and
 * what learning a topology cost. Functions and plain values only: a
 * program never includes a core room's header nor copies a table of the
 * library (tests/design/layers.py checks both). Not installed: an
 * interface between this project's parts, which may change with them. */
#ifndef COLLX_TOOLS_H
#define COLLX_TOOLS_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One COLLX_* setting (a knob of some knobs.def), as collx_info shows it. */
typedef struct CX_Setting_info {
    const char *name;       /* "COLLX_HIER_SENDERS" */
    const char *family;     /* "core", "hier", ... */
    const char *type;       /* "int", "size", "real", "enum", "string", "path", "algorithm" */
    const char *def;        /* default as a user writes it; NULL: none */
    const char *unset;      /* what happens without a value (def NULL) */
    const char *meaning;    /* one line */
    const char *tune;       /* values ./run tune tries, NULL: none */
    const char *tune_algs;  /* the algorithms that read it */
    const char *const *values;  /* enum: NULL-terminated; else NULL */
    const char *environment;    /* the environment's text, NULL: unset or empty */
    const char *source;     /* where the value comes from, in words */
    int has_int_range;      /* min, max hold (int, size) */
    long long min, max;
    int has_real_range;     /* rmin, rmax hold (real) */
    double rmin, rmax;
    int per_call;           /* a rule's "params" may set it */
    int rank_local;         /* may differ between ranks */
    int set;                /* it has a value (value[] holds it) */
    char value[256];        /* the value collx uses, as text */
    char range[700];        /* what it takes, in words */
} CX_Setting_info;

/* The number of settings, and setting i of them (0, or -1 when i is
 * outside 0..count-1). Needs no MPI_Init. */
int CX_Setting_count(void);
int CX_Setting_describe(int i, CX_Setting_info *info);

/* The i-th algorithm of coll (CX_Algorithm_name's order): its family
 * ("native" for the MPI's own) and the function that builds its schedule
 * ("PMPI" when the MPI's call runs). 0, or -1 when there is none. */
int CX_Algorithm_where(const char *coll, int i, const char **family, const char **builder);

/* The k-th set of built-in rules (a family's, compiled in from
 * src/<family>/<name>.rules.json): its name, or NULL past the last;
 * *path its source file, *text its rules. */
const char *CX_Rules_builtin(int k, const char **path, const char **text);

/* The node layout collx sees (COLLX_RANKS_PER_NODE and COLLX_FAKE_NODES
 * included). Collective over comm: the lowest rank of each rank's node
 * into lowest[size of comm]; MPI_SUCCESS or the MPI's error. */
int CX_Nodes_lowest(MPI_Comm comm, int *lowest);
/* Nodes and ranks on the fullest node from such a lowest[size] (sorted
 * in place). */
void CX_Nodes_count(int *lowest, int size, int *nodes, int *max_per_node);

/* The topology collx learned for comm (collective the first time: it
 * measures): nodes, node pairs measured and the seconds it took (0 when
 * loaded from a file). MPI_SUCCESS or an MPI error class. */
int CX_Topo_cost(MPI_Comm comm, int *nodes, int *pairs, double *seconds);

#ifdef __cplusplus
}
#endif
#endif
