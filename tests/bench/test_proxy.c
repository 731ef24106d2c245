/* proxy_app's pure parts: options, the default grid, and the data: every
 * rank's expected result is what the others' sends make of it (the
 * collectives done by hand here), so the checks in proxy_app can only
 * fail on a wrong collective. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pa_data.h"
#include "pa_opts.h"

static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

static int parse(const char *line, pa_opts *o, char *err)
{
    char buf[512], *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "proxy_app %s", line);
    for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
        argv[argc++] = t;
    return pa_opts_parse(argc, argv, o, err, 256);
}

static void bad(const char *line, const char *needle)
{
    pa_opts o;
    char err[256] = "";
    int rc = parse(line, &o, err);
    if (rc == 0 || !strstr(err, needle))
        fprintf(stderr, "'%s': rc=%d err='%s' (want '%s')\n", line, rc, err, needle);
    CHECK(rc != 0 && strstr(err, needle));
}

static void options(void)
{
    pa_opts o;
    char err[256];
    CHECK(parse("", &o, err) == 0);
    CHECK(o.rows == 0 && o.iters == 20 && o.fft == 2048 && o.gather == 512);
    CHECK(o.vec == 8192 && o.bcast == 4096 && o.compute_us == 0 && !o.csv && !o.corrupt);
    CHECK(parse("--rows 3 --iters=7 --fft 4K --gather 10 --vec=1M --bcast 0 --compute 50 --csv",
                &o, err) == 0);
    CHECK(o.rows == 3 && o.iters == 7 && o.fft == 4096 && o.gather == 16);   /* whole doubles */
    CHECK(o.vec == 1 << 20 && o.bcast == 0 && o.compute_us == 50 && o.csv);
    bad("--rows 0", "bad value '0' for --rows");
    bad("--iters", "--iters needs a value");
    bad("--fft 3G", "bad value '3G' for --fft");
    bad("--bogus 2", "unknown option '--bogus'");
    bad("--csv=1", "--csv takes no value");
}

static void grid(void)
{
    CHECK(pa_default_rows(24, 8) == 3);    /* one row per node */
    CHECK(pa_default_rows(12, 4) == 3);
    CHECK(pa_default_rows(12, 8) == 3);    /* 8 + 4: uneven, sqrt divisor */
    CHECK(pa_default_rows(12, 0) == 3);
    CHECK(pa_default_rows(16, 0) == 4);
    CHECK(pa_default_rows(7, 0) == 1);
    CHECK(pa_default_rows(1, 1) == 1);
}

/* p ranks as rows x cols: every collective done by hand against the wants. */
static void data(int p, int cols, int it)
{
    long n = 5, rows = p / cols;
    size_t one = sizeof(double) * (size_t)n;
    double *s = malloc(one * (size_t)(p * cols));
    double *got = malloc(one * (size_t)p), *want = malloc(one * (size_t)p);
    for (int me = 0; me < p; me++) {
        pa_where w = {.me = me, .p = p, .cols = cols, .it = it};
        pa_alltoall_send(s + (long)me * cols * n, n, &w);
    }
    for (int me = 0; me < p; me++) {
        pa_where w = {.me = me, .p = p, .cols = cols, .it = it};
        int row0 = me - me % cols;
        for (int j = 0; j < cols; j++)   /* block j from row member j, its block me % cols */
            memcpy(got + j * n, s + ((long)(row0 + j) * cols + me % cols) * n, one);
        pa_alltoall_want(want, n, &w);
        CHECK(pa_mismatch(got, want, cols * n) < 0);
        for (long i = 0; i < rows; i++) {  /* column member i: world me % cols + i cols */
            pa_where src = {.me = (int)(me % cols + i * cols), .p = p, .cols = cols, .it = it};
            pa_allgather_send(got + i * n, n, &src);
        }
        pa_allgather_want(want, n, &w);
        CHECK(pa_mismatch(got, want, rows * n) < 0);
    }
    double dot[2][2] = {{0}}, part[2], vec[5] = {0}, v[5], b[5];
    for (int me = 0; me < p; me++) {
        pa_where w = {.me = me, .p = p, .cols = cols, .it = it};
        for (int which = 0; which < 2; which++) {
            pa_dot_send(part, which, &w);
            dot[which][0] += part[0], dot[which][1] += part[1];
        }
        pa_vec_send(v, 5, &w);
        for (int k = 0; k < 5; k++)
            vec[k] += v[k];
    }
    pa_where w = {.me = p - 1, .p = p, .cols = cols, .it = it};
    for (int which = 0; which < 2; which++) {
        pa_dot_want(part, which, &w);
        CHECK(pa_mismatch(dot[which], part, 2) < 0);
    }
    pa_vec_want(v, 5, &w);
    CHECK(pa_mismatch(vec, v, 5) < 0);
    pa_bcast_data(b, 5, &w);
    CHECK(b[0] == 3.0 * it + 1 && pa_mismatch(b, b, 5) < 0);
    v[4] += 1;
    CHECK(pa_mismatch(vec, v, 5) == 4);
    free(s), free(got), free(want);
}

int main(void)
{
    options();
    grid();
    data(12, 4, 0);
    data(12, 4, 7);
    data(6, 2, 3);
    data(5, 5, 1);
    data(7, 1, 2);
    if (fails)
        return 1;
    printf("test_proxy: OK\n");
    return 0;
}
