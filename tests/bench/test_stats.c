/* r, e, t on constructed timestamps; summaries; guideline verdicts. */
#include <math.h>
#include <stdio.h>
#include "cb_stats.h"

static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)
#define NEAR(x, y) (fabs((x) - (y)) < 1e-12)

int main(void)
{
    /* PAP paper Fig. 1 style: arrivals a, finishes f of 4 ranks */
    double a[] = {1.0, 3.0, 2.0, 5.0};
    double f[] = {6.0, 7.0, 6.5, 8.0};
    CHECK(NEAR(cb_run_time(a, f, 4), 8.0 - 1.0));                         /* eq. 1 */
    CHECK(NEAR(cb_elapsed_time(a, f, 4), (5.0 + 4.0 + 4.5 + 3.0) / 4));   /* eq. 2 */
    CHECK(NEAR(cb_slowest_time(a, f, 4), 5.0));
    /* balanced arrivals: r = t */
    double a2[] = {0, 0, 0}, f2[] = {1, 2, 3};
    CHECK(NEAR(cb_run_time(a2, f2, 3), 3) && NEAR(cb_slowest_time(a2, f2, 3), 3));
    CHECK(NEAR(cb_elapsed_time(a2, f2, 3), 2));

    double x[] = {5, 1, 4, 2, 3};
    cb_summary s = cb_summarize(x, 5);
    CHECK(NEAR(s.min, 1) && NEAR(s.max, 5) && NEAR(s.median, 3) && NEAR(s.mean, 3));
    double y[] = {4, 1, 3, 2};
    s = cb_summarize(y, 4);
    CHECK(NEAR(s.median, 2.5) && NEAR(s.mean, 2.5));
    s = cb_summarize(y, 0);
    CHECK(s.min == 0 && s.max == 0);

    /* lhs <= rhs is violated only beyond the tolerance */
    CHECK(!cb_guideline_violated(100, 100, 0.05));
    CHECK(!cb_guideline_violated(105, 100, 0.05));
    CHECK(cb_guideline_violated(105.1, 100, 0.05));
    CHECK(!cb_guideline_violated(50, 100, 0.0));
    CHECK(cb_guideline_violated(100.001, 100, 0.0));
    if (!fails)
        printf("stats: ok\n");
    return fails != 0;
}
