/* Contract test: every registered algorithm against the PMPI_ result.
 * Shared pieces: typed sides, buffers with guards, value filling. */
#ifndef CONTRACT_H
#define CONTRACT_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

/* Bytes of guard before and after every buffer; sentinel fill byte. */
#define GUARD 64
#define SENTINEL 0xA5
#define GAPFILL 0x5A

/* One side of a call: datatype, count multiplier and its basic elements
 * (offset, 'i' int or 'd' double) inside one extent. */
typedef struct tside {
    const char *name;
    MPI_Datatype type;
    int mul;
    int nel;
    int off[2];
    char kind[2];
    MPI_Aint ext;
} tside;

typedef struct tcase {
    const char *name;
    int reducible;   /* usable for reduce_scatter_block (one homogeneous type) */
    int mixed;       /* 1: send type != receive type; 2: also rank-dependent */
    const tside *same;
} tcase;

void types_init(void);
void types_free(void);
int tcase_count(void);
const tcase *tcase_get(int i);
/* The send / receive side of case tc on rank r. */
const tside *send_side(const tcase *tc, int r);
const tside *recv_side(const tcase *tc, int r);

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
void fill_side(char *p, int count, const tside *t, unsigned seed);

#endif
