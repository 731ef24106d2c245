/* Option parsing: valid command lines fill the struct, bad ones fail with
 * a message that names the problem. */
#include <stdio.h>
#include <string.h>
#include "cb_opts.h"
#include "cb_problem.h"

static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

static int parse(const char *line, cb_opts *o, char *err)
{
    char buf[512], *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "collbench %s", line);
    for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
        argv[argc++] = t;
    return cb_opts_parse(argc, argv, o, err, 256);
}

static void bad(const char *line, const char *needle)
{
    cb_opts o;
    char err[256];
    int rc = parse(line, &o, err);
    if (rc == 0 || !strstr(err, needle))
        fprintf(stderr, "'%s': rc=%d err='%s' (want '%s')\n", line, rc, err, needle);
    CHECK(rc != 0 && strstr(err, needle));
}

int main(void)
{
    cb_opts o;
    char err[256];
    CHECK(parse("--coll gatherv -m 8:1K -i 7 -x 2 -f -c --algs linear,tuw --root rotate",
                &o, err) == 0);
    CHECK(!strcmp(o.coll, "gatherv") && o.min_size == 8 && o.max_size == 1024);
    CHECK(o.iters == 7 && o.warmup == 2 && o.full && o.validate);
    CHECK(o.nalgs == 2 && !strcmp(o.algs[1], "tuw") && o.root_mode == CB_ROOT_ROTATE);

    CHECK(parse("--coll=scatterv --problem spikes,twoblocks -b 1,100 --guidelines "
                "--tolerance 10% --pap uniform --max-delay 50ms --seed 9", &o, err) == 0);
    CHECK(o.nproblems == 2 && o.problems[0] == CB_PROBLEM_SPIKES && o.nb == 2 && o.bs[1] == 100);
    CHECK(o.guidelines && o.tolerance > 0.0999 && o.tolerance < 0.1001);
    CHECK(o.pap == CB_PAP_UNIFORM && o.max_delay > 0.0499 && o.max_delay < 0.0501 && o.seed == 9);
    CHECK(o.root_mode == CB_ROOT_MID); /* --problem defaults to root p/2 */

    CHECK(parse("--coll bcast --root 3", &o, err) == 0 && o.root == 3);
    CHECK(parse("--coll bcast -m 8,96,4K --comm-size 6 --host-time", &o, err) == 0 &&
          o.host_time);
    CHECK(o.nsize_list == 3 && o.size_list[1] == 96 && o.size_list[2] == 4096 &&
          o.comm_size == 6);
    CHECK(parse("--coll bcast --comm-shape 4x1", &o, err) == 0 && o.shape_nodes == 4 &&
          o.shape_per == 1 && o.comm_size == 4);   /* the shape says the size */
    CHECK(parse("--coll bcast --comm-size 6 --comm-shape=3x2", &o, err) == 0 &&
          o.shape_nodes == 3 && o.shape_per == 2 && o.comm_size == 6);
    CHECK(parse("--coll bcast -m 8,16 -m 4:64", &o, err) == 0 && o.nsize_list == 0 &&
          o.max_size == 64);
    CHECK(parse("--help", &o, err) == 0 && o.help);
    CHECK(cb_parse_duration("2s") == 2 && cb_parse_duration("300us") > 2.99e-4);
    CHECK(cb_parse_duration("5parsecs") < 0 && cb_parse_size("4M") == 4 << 20);

    bad("-m 4:64", "--coll is required");
    bad("--coll allfoo", "unknown collective");
    bad("--coll gather -m 64:4", "bad size range");
    bad("--coll gather -m x", "bad size range");
    bad("--coll gather -m 8,,16", "bad size list");
    bad("--coll gather -m 8,2G", "bad size '2G'");
    bad("--coll gather --comm-size 0", "bad --comm-size");
    bad("--coll gather --comm-shape 3", "bad --comm-shape '3'");
    bad("--coll gather --comm-shape 0x2", "bad --comm-shape");
    bad("--coll gather --comm-shape 2x", "bad --comm-shape");
    bad("--coll gather --comm-shape 2x1x1", "bad --comm-shape");
    bad("--coll gather --comm-shape 3x2 --comm-size 5", "disagree");
    bad("--coll gather -i 0", "bad count for -i");
    bad("--coll gather -i", "needs a value");
    bad("--coll gather --bogus", "unknown option");
    bad("--coll gather --problem same", "needs a v-collective");
    bad("--coll gatherv --problem wobbly", "unknown problem");
    bad("--coll gatherv --problem same -b 0", "bad block scale");
    bad("--coll bcast --guidelines", "--guidelines needs");
    bad("--coll gather --pap uniform", "needs --max-delay");
    bad("--coll gather --max-delay 5ms", "needs --pap");
    bad("--coll gather --pap poisson --max-delay 5ms", "unknown arrival pattern");
    bad("--coll gather --root left", "bad --root");
    bad("--coll gather --tolerance lots", "bad --tolerance");
    bad("--coll gatherv --guidelines=yes", "takes no value");
    bad("--coll gather --mode sometimes", "unknown --mode");
    bad("--coll gather --mode persistent --root rotate", "no --root rotate");
    bad("--coll gatherv --mode nonblocking --guidelines", "time blocking calls");
    {
        cb_opts o;
        char err[256];
        CHECK(parse("--coll allreduce --mode nonblocking", &o, err) == 0 &&
              o.mode == CB_MODE_NONBLOCKING);
        CHECK(parse("--coll gatherv --mode=persistent", &o, err) == 0 &&
              o.mode == CB_MODE_PERSISTENT);
        CHECK(parse("--coll gatherv", &o, err) == 0 && o.mode == CB_MODE_BLOCKING);
    }
    if (!fails)
        printf("opts: ok\n");
    return fails != 0;
}
