/* Problem types of J. L. Träff, "Practical, Linear-time, Fully Distributed
 * Algorithms for Irregular Gather and Scatter", section 5 (Experiments):
 * b > 0 is the average block size (in MPI_INT), p the number of processes.
 *   Same:        m_i = b
 *   Random:      m_i uniform in [1, 2b]
 *   Spikes:      m_i = rho*b with probability 1/rho, else 1   (rho = 5)
 *   Decreasing:  m_i = floor(2b(p-i)/p) + 1
 *   Alternating: m_i = b + floor(b/2) for even i, b - floor(b/2) for odd i
 *   Two blocks:  m_i = 0 except m_0 = m_{p-1} = b
 * All but two blocks have m_i > 0, so no algorithm can profit from empty
 * blocks. The paper uses root r = floor(p/2). */
#include <string.h>
#include "cb_problem.h"
#include "cb_rng.h"

static const char *const names[CB_PROBLEM_COUNT] = {
    "same", "random", "spikes", "decreasing", "alternating", "twoblocks"};

const char *cb_problem_name(cb_problem pr)
{
    return pr < CB_PROBLEM_COUNT ? names[pr] : "?";
}

int cb_problem_from_name(const char *name)
{
    for (int i = 0; i < CB_PROBLEM_COUNT; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

long long cb_problem_fill(cb_problem pr, int p, long b, uint64_t seed, int *m)
{
    long long total = 0;
    for (int i = 0; i < p; i++) {
        long v = 0;
        /* a distinct stream per problem type, so random and spikes differ */
        double u = cb_uniform(seed, (uint64_t)pr, (uint64_t)i);
        switch (pr) {
        case CB_PROBLEM_SAME: v = b; break;
        case CB_PROBLEM_RANDOM: v = 1 + (long)(u * (double)(2 * b)); break;
        case CB_PROBLEM_SPIKES:
            v = u < 1.0 / CB_SPIKES_RHO ? CB_SPIKES_RHO * b : 1;
            break;
        case CB_PROBLEM_DECREASING:
            v = (long)((2LL * b * (p - i)) / p) + 1;
            break;
        case CB_PROBLEM_ALTERNATING:
            v = i % 2 == 0 ? b + b / 2 : b - b / 2;
            break;
        case CB_PROBLEM_TWOBLOCKS: v = (i == 0 || i == p - 1) ? b : 0; break;
        default: v = 0;
        }
        m[i] = (int)v;
        total += v;
    }
    return total;
}

int cb_problem_max(const int *m, int p)
{
    int mx = 0;
    for (int i = 0; i < p; i++)
        if (m[i] > mx)
            mx = m[i];
    return mx;
}
