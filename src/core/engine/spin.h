/* How a blocking wait spends its first microseconds (spin.c): on real
 * cores a flag another rank sets is seen within a cache-line handoff
 * (~0.1 us) by a core that keeps looking, while a trip through the MPI's
 * progress and sched_yield costs ~0.5 us a turn; on an oversubscribed
 * node the waiter must give its core to the rank it waits for. */
#ifndef CX_SPIN_H
#define CX_SPIN_H

#include <stdint.h>

/* Nanoseconds a blocking wait may spin on its condition before it waits
 * politely (COLLX_SPIN in us; unset: CX_SPIN_DEFAULT_US where the node's
 * ranks fit its cores, 0 where they do not, and in SMPI, whose ranks only
 * move inside MPI calls). */
#define CX_SPIN_DEFAULT_US 50
int64_t cx_spin_budget_ns(void);
/* A monotonic clock in nanoseconds (the vDSO's: ~20 ns). */
int64_t cx_now_ns(void);
/* One turn of a spin: tells the core it is waiting (x86 pause, Arm yield). */
static inline void cx_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
