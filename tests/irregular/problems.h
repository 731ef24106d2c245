/* Block-size problems of Träff's paper, section 5 (b = average block):
 * same, random [1,2b], spikes (rho b with probability 1/rho, else 1; rho=5),
 * decreasing floor(2b(p-i)/p)+1, alternating b +- floor(b/2), two blocks
 * (b at ranks 0 and p-1, 0 elsewhere). Identical on every rank for a seed. */
#ifndef TUW_TEST_PROBLEMS_H
#define TUW_TEST_PROBLEMS_H

enum { PR_SAME, PR_RANDOM, PR_SPIKES, PR_DECREASING, PR_ALTERNATING, PR_TWOBLOCKS,
       PR_COUNT };

static const char *const pr_names[PR_COUNT] = {"same", "random", "spikes",
                                               "decreasing", "alternating",
                                               "twoblocks"};

static unsigned pr_next(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(*s >> 33);
}

static void pr_fill(int pr, int p, int b, unsigned long long seed, int *m)
{
    unsigned long long s = seed * 2654435761ULL + (unsigned long long)pr;
    for (int i = 0; i < p; i++) {
        switch (pr) {
        case PR_SAME: m[i] = b; break;
        case PR_RANDOM: m[i] = 1 + (int)(pr_next(&s) % (unsigned)(2 * b)); break;
        case PR_SPIKES: m[i] = pr_next(&s) % 5 == 0 ? 5 * b : 1; break;
        case PR_DECREASING: m[i] = (int)(2LL * b * (p - i) / p) + 1; break;
        case PR_ALTERNATING: m[i] = i % 2 == 0 ? b + b / 2 : b - b / 2; break;
        default: m[i] = (i == 0 || i == p - 1) ? b : 0; break;
        }
    }
}

#endif
