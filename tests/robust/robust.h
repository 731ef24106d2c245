/* Helpers shared by the robust tests: byte patterns that are cheap to
 * write and check over gigabytes, error-class names, timing. */
#ifndef ROBUST_H
#define ROBUST_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The pattern of (seed): the little-endian bytes of the words
 * mix(seed) + k * ODD, k = 0, 1, ...; every word differs from its
 * neighbours and from other seeds' words, so a misplaced, shifted, stale
 * or partly written block is seen. Unaligned starts are fine (memcpy). */
static inline uint64_t rb_mix(uint64_t seed)
{
    seed ^= seed >> 31;
    seed *= 0xBF58476D1CE4E5B9ull;
    seed ^= seed >> 27;
    return seed * 0x94D049BB133111EBull + 1;
}
#define RB_ODD 0x9E3779B97F4A7C15ull

static inline void rb_fill(void *buf, size_t bytes, uint64_t seed)
{
    unsigned char *p = buf;
    uint64_t s = rb_mix(seed);
    size_t nw = bytes / 8;
    for (size_t k = 0; k < nw; k++) {
        uint64_t v = s + k * RB_ODD;
        memcpy(p + 8 * k, &v, 8);
    }
    uint64_t v = s + nw * RB_ODD;
    memcpy(p + 8 * nw, &v, bytes % 8);
}

/* Offset of the first byte that differs from the pattern, or -1. */
static inline long long rb_check(const void *buf, size_t bytes, uint64_t seed)
{
    const unsigned char *p = buf;
    uint64_t s = rb_mix(seed);
    size_t nw = bytes / 8, chunk = 1 << 16;
    for (size_t c = 0; c < nw; c += chunk) {
        size_t e = c + chunk < nw ? c + chunk : nw;
        uint64_t diff = 0;
        for (size_t k = c; k < e; k++) {   /* vectorizes: no early exit */
            uint64_t v;
            memcpy(&v, p + 8 * k, 8);
            diff |= v ^ (s + k * RB_ODD);
        }
        if (diff)
            for (size_t k = c; k < e; k++) {
                uint64_t v, w = s + k * RB_ODD;
                memcpy(&v, p + 8 * k, 8);
                if (v != w)
                    for (int b = 0; b < 8; b++)
                        if (((v ^ w) >> (8 * b)) & 0xff)
                            return (long long)(8 * k + b);
            }
    }
    uint64_t v = s + nw * RB_ODD;
    for (size_t b = 0; b < bytes % 8; b++)
        if (p[8 * nw + b] != (unsigned char)(v >> (8 * b)))
            return (long long)(8 * nw + b);
    return -1;
}

static inline const char *rb_class_name(int cls)
{
    switch (cls) {
    case MPI_SUCCESS: return "SUCCESS";
    case MPI_ERR_TRUNCATE: return "ERR_TRUNCATE";
    case MPI_ERR_COUNT: return "ERR_COUNT";
    case MPI_ERR_ARG: return "ERR_ARG";
    case MPI_ERR_BUFFER: return "ERR_BUFFER";
    case MPI_ERR_TYPE: return "ERR_TYPE";
    case MPI_ERR_ROOT: return "ERR_ROOT";
    case MPI_ERR_NO_MEM: return "ERR_NO_MEM";
    case MPI_ERR_IN_STATUS: return "ERR_IN_STATUS";
    case MPI_ERR_INTERN: return "ERR_INTERN";
    case MPI_ERR_OTHER: return "ERR_OTHER";
    default: return "another error";
    }
}

static inline int rb_class(int err)
{
    int cls = err;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    return cls;
}

#endif
