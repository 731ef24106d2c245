/* Large scratch buffers kept between calls. glibc serves blocks above its
 * mmap threshold (128 KiB at first) with fresh pages, so a schedule that
 * takes a 1 MiB temporary at every call pays the page faults every call:
 * Open MPI, p = 2, a recursive-doubling allreduce of 1 MiB took 925 us
 * per call through the interposer, 262 us with glibc told to keep such
 * blocks (MALLOC_MMAP_THRESHOLD_). collx keeps a few freed blocks itself
 * instead of changing the program's malloc. A block carries its size in
 * a header; one is handed out again for a request of at least a quarter
 * of its size (no 64 MiB block for a 64 KiB need). */
#include <pthread.h>
#include <stdlib.h>
#include "scratch.h"

#define KEEP 4                           /* blocks kept */
#define KEEP_BYTES ((size_t)64 << 20)    /* nor more bytes than this */

typedef union header {
    size_t bytes;
    max_align_t align;   /* the block after it stays as aligned as malloc's */
} header;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static header *kept[KEEP];
static size_t kept_bytes;

void *cx_scratch_get(size_t bytes)
{
    header *h = NULL;
    pthread_mutex_lock(&mu);
    int best = -1;
    for (int i = 0; i < KEEP; i++)
        if (kept[i] && kept[i]->bytes >= bytes && kept[i]->bytes / 4 <= bytes &&
            (best < 0 || kept[i]->bytes < kept[best]->bytes))
            best = i;
    if (best >= 0) {
        h = kept[best];
        kept[best] = NULL;
        kept_bytes -= h->bytes;
    }
    pthread_mutex_unlock(&mu);
    if (!h && (h = malloc(sizeof *h + bytes)))
        h->bytes = bytes;
    return h ? h + 1 : NULL;
}

void cx_scratch_put(void *p)
{
    header *h = (header *)p - 1, *drop = h;
    pthread_mutex_lock(&mu);
    int slot = 0;   /* an empty slot, else the one of the smallest kept block */
    for (int i = 0; i < KEEP; i++) {
        if (!kept[i]) {
            slot = i;
            break;
        }
        if (kept[i]->bytes < kept[slot]->bytes)
            slot = i;
    }
    if (kept[slot] && kept[slot]->bytes >= h->bytes)
        slot = -1;   /* everything kept is as large: this one goes */
    if (slot >= 0) {
        size_t out = kept[slot] ? kept[slot]->bytes : 0;
        if (kept_bytes - out + h->bytes <= KEEP_BYTES) {
            drop = kept[slot];
            kept[slot] = h;
            kept_bytes += h->bytes - out;
        }
    }
    pthread_mutex_unlock(&mu);
    free(drop);
}
