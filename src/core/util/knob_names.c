/* COLLX_ names in the environment that no knob has: a misspelled setting
 * (COLLX_HIER_INTRE) would otherwise change nothing, silently. Rank 0
 * warns once for a name within a typo or two of a knob's, naming it;
 * under COLLX_VERBOSE it also lists the other unknown COLLX_ names (the
 * tools' own, such as COLLX_MPI, are not the library's settings: those
 * of tool_vars are not warned of, and COLLX_CONFIG, collxrun's config
 * file, is named as such under COLLX_VERBOSE). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include "knobs.h"

extern char **environ;

/* Edit distance (insert, delete, substitute, swap of neighbours), capped. */
static int distance(const char *a, size_t m, const char *b)
{
    size_t n = strlen(b);
    if (m > 63 || n > 63)
        return 99;
    int d[64][64];
    for (size_t i = 0; i <= m; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= n; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= m; i++)
        for (size_t j = 1; j <= n; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[m][n];
}

/* The tools' own COLLX_ variables (collxrun, bin/collx, ./run): not
 * misspelled settings. NULL: not worth a line. */
static const struct {
    const char *name, *what;
} tool_vars[] = {
    {"COLLX_CONFIG", "collxrun's config file, which the library does not read: collxrun "
                     "hands its settings to the ranks (launched without collxrun, they do "
                     "not apply)"},
    {"COLLX_MPI", NULL},        /* ./run, the bench scripts, collx sweep: which MPI */
    {"COLLX_PYTHON", NULL},     /* bin/collx: the Python it runs */
    {"COLLX_BENCH_DIR", NULL},  /* collx tools: where collbench is */
    {"COLLX_PMPI_LIB", NULL},   /* collx tools: the interposer */
    {"COLLX_CLUSTER", NULL},    /* collx apps: the emulated cluster */
    {"COLLX_CLUSTER_RUN", NULL},   /* the emulated cluster's state folder */
    {"COLLX_CLUSTER_OWNER", NULL},
    {"COLLX_PLATFORM", NULL},      /* sim/run: the SMPI platform simulated */
    {"COLLX_APPS", NULL},          /* ./run apps: which applications */
    {"COLLX_APPS_ROUNDS", NULL},
    {"COLLX_TEST_SMPI", NULL},     /* ./run test: which parts run */
    {"COLLX_TEST_CLUSTER", NULL},
};

void cx_knobs_check_names(int verbose)
{
    static atomic_int done;
    int init = 0;
    PMPI_Initialized(&init);
    if (!init || !cx_world_rank_zero() || atomic_exchange(&done, 1))
        return;
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (strncmp(*e, "COLLX_", 6) || !eq)
            continue;
        size_t len = (size_t)(eq - *e);
        char name[128];
        if (len >= sizeof name)
            continue;
        memcpy(name, *e, len);
        name[len] = '\0';
        if (cx_knob_find(name) >= 0)
            continue;
        int tool = -1;
        for (int t = 0; t < (int)(sizeof tool_vars / sizeof *tool_vars); t++)
            if (!strcmp(name, tool_vars[t].name))
                tool = t;
        if (tool >= 0) {
            if (verbose > 0 && tool_vars[tool].what)
                fprintf(stderr, "collx: %s is %s\n", name, tool_vars[tool].what);
            continue;
        }
        int best = 99, at = -1;
        for (int k = 0; k < CX_KNOB_COUNT; k++) {
            int d = distance(name, len, cx_knob_decls[k].name);
            if (d < best)
                best = d, at = k;
        }
        int near = best <= (len > 16 ? 3 : 2);
        if (near)
            fprintf(stderr, "collx: %s is not a collx setting: did you mean %s? (it is "
                    "ignored; collx_info --vars lists the settings)\n", name,
                    cx_knob_decls[at].name);
        else if (verbose > 0)
            fprintf(stderr, "collx: %s is not a collx library setting (ignored here; a "
                    "tool's variable, or misspelled? collx_info --vars lists them)\n", name);
    }
}
