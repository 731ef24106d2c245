/* A node's doorbell on a real MPI (bell.h; SMPI's is bell.smpi.c): ranks
 * poll, nobody sleeps, so there is nothing to make or ring (bell.h's
 * inline waits never call the SMPI side: CX_SIMULATED is a constant 0,
 * folded away even at -O0). */
#include "bell.h"

void cx_bell_make(cx_comm *c)
{
    (void)c;
}

cx_bell_taken cx_bell_take(cx_comm *c)
{
    (void)c;
    return (cx_bell_taken){NULL, NULL};
}

void cx_bell_free(cx_bell_taken t)
{
    (void)t;
}

void cx_bell_ring(cx_comm *c)
{
    (void)c;
}
