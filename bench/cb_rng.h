/* Reproducible random numbers for problem generators and arrival delays.
 * splitmix64: tiny, stateless per draw, identical on every rank and every
 * machine (no libc rand(), whose sequence differs between libcs). */
#ifndef CB_RNG_H
#define CB_RNG_H

#include <stdint.h>

static inline uint64_t cb_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Uniform double in [0,1) from a seed and two coordinates. */
static inline double cb_uniform(uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t h = cb_mix64(cb_mix64(cb_mix64(seed) ^ a) ^ (b * 0x632be59bd9b4e019ULL));
    return (double)(h >> 11) * 0x1.0p-53;
}

#endif
