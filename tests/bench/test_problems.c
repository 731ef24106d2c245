/* Problem generators against the formulas and the m, m' columns of Träff's
 * Table 1 (p = 560). */
#include <stdio.h>
#include <stdlib.h>
#include "cb_problem.h"

static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

static long long fill(cb_problem pr, int p, long b, int *m, int *mx)
{
    long long s = cb_problem_fill(pr, p, b, 1, m);
    *mx = cb_problem_max(m, p);
    return s;
}

int main(void)
{
    enum { P = 560 };
    int m[P], mx;
    /* deterministic problems: m and m' = p * max exactly as in Table 1 */
    struct { cb_problem pr; long b; long long m, mp; } t[] = {
        {CB_PROBLEM_SAME, 1, 560, 560},         {CB_PROBLEM_SAME, 10000, 5600000, 5600000},
        {CB_PROBLEM_DECREASING, 1, 842, 1680},  {CB_PROBLEM_DECREASING, 10, 5900, 11760},
        {CB_PROBLEM_DECREASING, 100, 56400, 112560},
        {CB_PROBLEM_DECREASING, 10000, 5610320, 11200560},
        {CB_PROBLEM_ALTERNATING, 1, 560, 560},  {CB_PROBLEM_ALTERNATING, 10, 5600, 8400},
        {CB_PROBLEM_ALTERNATING, 1000, 560000, 840000},
        {CB_PROBLEM_TWOBLOCKS, 1, 2, 560},      {CB_PROBLEM_TWOBLOCKS, 10000, 20000, 5600000},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        long long s = fill(t[i].pr, P, t[i].b, m, &mx);
        if (s != t[i].m || (long long)P * mx != t[i].mp)
            fprintf(stderr, "%s b=%ld: m=%lld m'=%lld, want %lld %lld\n",
                    cb_problem_name(t[i].pr), t[i].b, s, (long long)P * mx, t[i].m, t[i].mp);
        CHECK(s == t[i].m && (long long)P * mx == t[i].mp);
    }
    /* the formulas themselves, element by element */
    long b = 37;
    fill(CB_PROBLEM_DECREASING, P, b, m, &mx);
    for (int i = 0; i < P; i++)
        CHECK(m[i] == (int)(2 * b * (P - i) / P) + 1);
    fill(CB_PROBLEM_ALTERNATING, P, b, m, &mx);
    for (int i = 0; i < P; i++)
        CHECK(m[i] == (i % 2 ? b - b / 2 : b + b / 2));
    fill(CB_PROBLEM_TWOBLOCKS, P, b, m, &mx);
    for (int i = 0; i < P; i++)
        CHECK(m[i] == ((i == 0 || i == P - 1) ? b : 0));
    /* random: uniform in [1, 2b], mean ~ (2b+1)/2 (Table 1: 844 for b=1) */
    for (long bb = 1; bb <= 10000; bb *= 10) {
        long long s = fill(CB_PROBLEM_RANDOM, P, bb, m, &mx);
        for (int i = 0; i < P; i++)
            CHECK(m[i] >= 1 && m[i] <= 2 * bb);
        double mean = (double)s / P, want = (2.0 * bb + 1) / 2;
        CHECK(mean > 0.85 * want && mean < 1.15 * want);
    }
    /* spikes: rho*b with probability 1/rho, else 1 (rho = 5) */
    long long s = fill(CB_PROBLEM_SPIKES, P, 100, m, &mx);
    int spikes = 0;
    for (int i = 0; i < P; i++) {
        CHECK(m[i] == 1 || m[i] == CB_SPIKES_RHO * 100);
        spikes += m[i] > 1;
    }
    CHECK(spikes > P / CB_SPIKES_RHO / 2 && spikes < 2 * P / CB_SPIKES_RHO);
    CHECK(mx == 500 && s == spikes * 500LL + (P - spikes));
    /* reproducible by seed, different across seeds */
    int m2[P];
    cb_problem_fill(CB_PROBLEM_RANDOM, P, 100, 1, m);
    cb_problem_fill(CB_PROBLEM_RANDOM, P, 100, 1, m2);
    int same = 1, diff = 0;
    for (int i = 0; i < P; i++)
        same &= m[i] == m2[i];
    cb_problem_fill(CB_PROBLEM_RANDOM, P, 100, 2, m2);
    for (int i = 0; i < P; i++)
        diff |= m[i] != m2[i];
    CHECK(same && diff);
    CHECK(cb_problem_from_name("spikes") == CB_PROBLEM_SPIKES);
    CHECK(cb_problem_from_name("nope") == -1);
    if (!fails)
        printf("problems: ok\n");
    return fails != 0;
}
