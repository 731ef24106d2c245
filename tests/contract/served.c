/* Whether every algorithm served, itself, the cases its requirement bits
 * (CX_Algorithm_requires) say it can, and left to its fallback only those
 * they exclude (CX_Algorithm_fallbacks counts each hand-over). Under
 * COLLX_FALLBACK=error a hand-over must instead return an error of class
 * MPI_ERR_UNSUPPORTED_OPERATION. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "served.h"

#define MAX_ALGS 64

static node_facts_t facts;
static int error_mode;
/* per algorithm of the collective under test */
static long n_served[MAX_ALGS], n_left[MAX_ALGS], n_open[MAX_ALGS];
#define NWHY 11   /* the requirement bits 0..9, then "size or per-call check" */
static long n_why[MAX_ALGS][NWHY];   /* hand-overs by requirement */

static const char *const bit_names[NWHY] = {
    "non-commutative op", "one node", "uneven nodes", "interleaved nodes",
    "no MPI_THREAD_MULTIPLE", "node memory for the size", "nonblocking call",
    "its per-call check", "non-commutative op on interleaved nodes",
    "MPI_THREAD_MULTIPLE", "its size or per-call check"};

void served_init(MPI_Comm comm)
{
    const char *v = getenv("COLLX_FALLBACK");
    error_mode = v && strcmp(v, "error") == 0;
    node_facts(comm, &facts);
}

int served_error_mode(void) { return error_mode; }

void served_reset(void)
{
    memset(n_served, 0, sizeof n_served);
    memset(n_left, 0, sizeof n_left);
    memset(n_open, 0, sizeof n_open);
    memset(n_why, 0, sizeof n_why);
}

/* The first requirement of req this case misses (its bit's index), or
 * -1 when none does. */
static int missed(unsigned req, const call *c, int mode)
{
    int commute = 1;
    if (c->rc && c->rc->op != MPI_OP_NULL)
        MPI_Op_commutative(c->rc->op, &commute);
    if ((req & CX_REQ_COMMUTATIVE) && !commute)
        return 0;
    if ((req & CX_REQ_MULTI_NODE) && facts.nnodes < 2)
        return 1;
    if ((req & CX_REQ_UNIFORM_NODES) && !facts.uniform)
        return 2;
    if ((req & CX_REQ_CONSECUTIVE) && !facts.consecutive)
        return 3;
    if ((req & CX_REQ_THREAD_MULTIPLE) && !facts.thread_multiple)
        return 4;
    if ((req & CX_REQ_NO_THREAD_MULTIPLE) && facts.thread_multiple)
        return 9;
    if ((req & CX_REQ_ORDER_KEPT) && !commute && !facts.consecutive)
        return 8;
    if ((req & CX_REQ_BLOCKING) && mode != MODE_BLOCKING)
        return 6;
    return -1;
}

void served_before(served_probe *p, const char *coll, int i, const call *c, int mode)
{
    int req = CX_Algorithm_requires(coll, i);
    p->coll = coll;
    p->i = i < MAX_ALGS ? i : MAX_ALGS - 1;
    p->alg = CX_Algorithm_name(coll, i);
    p->why = missed((unsigned)req, c, mode);
    p->expect = p->why >= 0 ? EXPECT_LEAVE
                : req & (CX_REQ_SHM | CX_REQ_CHECK) ? EXPECT_MAY : EXPECT_SERVE;
    p->fallbacks = CX_Algorithm_fallbacks(coll, p->alg);
    if (p->expect != EXPECT_LEAVE)
        n_open[p->i]++;
}

int served_after(served_probe *p, int err, int *fell, char *msg, size_t len)
{
    *fell = CX_Algorithm_fallbacks(p->coll, p->alg) > p->fallbacks;
    if (!*fell) {
        n_served[p->i]++;
        if (p->expect == EXPECT_LEAVE) {
            snprintf(msg, len, "served a call its requirements exclude (%s)",
                     bit_names[p->why]);
            return 1;
        }
        return 0;
    }
    n_left[p->i]++;
    n_why[p->i][p->why >= 0 ? p->why : NWHY - 1]++;
    if (p->expect == EXPECT_SERVE) {
        snprintf(msg, len, "left the call to its fallback although its requirements "
                 "hold");
        return 1;
    }
    int cls = MPI_SUCCESS;
    if (err)
        MPI_Error_class(err, &cls);
    if (error_mode && cls != MPI_ERR_UNSUPPORTED_OPERATION) {
        snprintf(msg, len, "fell back under COLLX_FALLBACK=error but returned error "
                 "class %d, not MPI_ERR_UNSUPPORTED_OPERATION", cls);
        return 1;
    }
    return 0;
}

long served_report(const char *coll, int rank)
{
    long bad = 0;
    for (int i = 0; i < CX_Algorithm_count(coll) && i < MAX_ALGS; i++) {
        const char *alg = CX_Algorithm_name(coll, i);
        if (n_served[i] == 0 && n_open[i] > 0) {
            if (rank == 0)
                printf("FAIL %s alg=%s: never served a call itself in %ld calls its "
                       "requirements allow\n", coll, alg, n_open[i]);
            bad++;
        }
        if (rank != 0 || !n_left[i])
            continue;
        printf("  %s %s: served %ld calls itself, left %ld to %s (", coll, alg,
               n_served[i], n_left[i], CX_Algorithm_fallback(coll, i));
        for (int b = 0, first = 1; b < NWHY; b++)
            if (n_why[i][b]) {
                printf("%s%s: %ld", first ? "" : ", ", bit_names[b], n_why[i][b]);
                first = 0;
            }
        printf(")%s\n", error_mode ? " [COLLX_FALLBACK=error: returned errors]" : "");
    }
    return bad;
}
