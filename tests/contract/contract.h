/* Contract test: every registered algorithm against the PMPI_ result.
 * Shared pieces: typed sides, reduction cases, buffers with guards, value
 * filling. */
#ifndef CONTRACT_H
#define CONTRACT_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

/* Bytes of guard before and after every buffer; sentinel fill byte. */
#define GUARD 64
#define SENTINEL 0xA5
#define GAPFILL 0x5A

/* Most basic elements (ints or doubles) in one element of a side. */
#define MAX_NEL 4

/* One side of a call: datatype, count multiplier and its basic elements
 * (offset, 'i' int or 'd' double) inside one extent. */
typedef struct tside {
    const char *name;
    MPI_Datatype type;
    int mul;
    int nel;
    int off[MAX_NEL];
    char kind[MAX_NEL];
    MPI_Aint ext;
} tside;

/* A datatype case of the data-movement collectives. */
typedef struct tcase {
    const char *name;
    int mixed;       /* 1: send type != receive type; 2: also rank-dependent */
    const tside *same;
    int bottom;      /* buffers given as MPI_BOTTOM + absolute addresses */
} tcase;

/* Values written by fill_vals: any order of a commutative operation must
 * give the same bits (sums of integers stay exact in doubles, products of
 * +-1 and +-2 too; 16-bit values for the user-defined operations). */
enum { VALS_WIDE, VALS_PROD, VALS_U16 };

/* A reduction case: datatype, operation and the values it is fed. */
typedef struct rcase {
    const char *name;
    const tside *side;
    MPI_Op op;
    int vals;
    int large;       /* also run at the large count */
    int bottom;      /* in place only: MPI_BOTTOM + an absolute datatype */
} rcase;

void types_init(void);
void types_free(void);
int tcase_count(void);
const tcase *tcase_get(int i);
/* The send / receive side of case tc on rank r. */
const tside *send_side(const tcase *tc, int r);
const tside *recv_side(const tcase *tc, int r);
/* The side whose datatype is t, NULL if none; *shift: bytes to add to a
 * buffer pointer to find its elements (non-zero for an absolute type). */
const tside *side_of_type(MPI_Datatype t, MPI_Aint *shift);
/* Datatypes of MPI_BOTTOM calls: side t's type moved to absolute address
 * at (one element at `at`, same extent). absolute_release(m) frees those
 * made since absolute_mark() returned m (last made, first freed). */
MPI_Datatype absolute_type(MPI_Datatype t, const void *at);
int absolute_mark(void);
void absolute_release(int mark);
/* Sides of the reduction cases: "int", "double", "vector", "mat", "matgap". */
const tside *side_named(const char *name);

/* Reduction cases (after types_init: user-defined operations). */
void rcases_init(void);
void rcases_free(void);
int rcase_count(void);
const rcase *rcase_get(int i);
/* Calls of a user-defined operation with a datatype other than the
 * reduction's since the last call (MPI passes the call's datatype). */
long user_op_misuse(void);

/* A buffer with GUARD bytes on each side; data points past the front guard. */
typedef struct tbuf {
    char *base;
    size_t bytes;   /* data bytes */
    char *data;
} tbuf;

void tbuf_alloc(tbuf *b, size_t data_bytes, int fill);
void tbuf_free(tbuf *b);
void tbuf_copy(tbuf *dst, const tbuf *src);   /* same size, guards included */
/* First differing byte (relative to data, negative = front guard) or
 * PTRDIFF_MIN when equal; *ndiff = number of differing bytes. */
ptrdiff_t tbuf_diff(const tbuf *a, const tbuf *b, size_t *ndiff);

/* Writes count elements of side t at p (values depend on seed). */
void fill_vals(char *p, int count, const tside *t, unsigned seed, int vals);
#define fill_side(p, count, t, seed) fill_vals(p, count, t, seed, VALS_WIDE)

/* Prints "nodes: <node of rank 0> <node of rank 1> ..." on rank 0. */
void print_nodes(MPI_Comm comm);
/* What collx knows of comm's node layout and threads (collective). */
typedef struct node_facts_t {
    int nnodes, uniform, consecutive, thread_multiple;
} node_facts_t;
void node_facts(MPI_Comm comm, node_facts_t *f);

#endif
