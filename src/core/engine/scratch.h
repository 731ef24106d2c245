/* Large scratch buffers kept between calls (scratch.c). */
#ifndef CX_SCRATCH_H
#define CX_SCRATCH_H

#include <stddef.h>

/* Blocks of at least this many bytes are kept when freed. */
#define CX_SCRATCH_MIN ((size_t)64 << 10)

/* A block of at least bytes (a kept one when one fits), NULL when out of
 * memory; give it back with cx_scratch_put only. */
void *cx_scratch_get(size_t bytes);
void cx_scratch_put(void *p);

#endif
