/* Schedules: what an algorithm emits instead of talking to MPI.
 *
 * A schedule is a list of rounds. Starting a round runs its local steps in
 * order (copies and reductions, charged in SMPI at the platform's memory
 * rate; start steps, which post any MPI request or append rounds), then
 * posts its receives, then its sends (a message flagged CX_MSG_EARLY: in
 * order among the local steps, so the copies after it overlap its
 * transfer); the round ends when every request it posted has completed
 * and every poll step of it has returned true. Between polls the
 * executors let MPI progress and yield (cx_sched_idle), or only back off
 * (s->backoff: polls that make their own MPI calls, the RMA drop-in's).
 * Each message carries its own communicator and tag (the schedule's by
 * default).
 *
 * Counts are MPI_Aint: a message of more than INT_MAX elements is sent as
 * one element of a derived type. Messages of size zero are not sent in
 * v-collectives (both sides know a block is empty, as in the MPI
 * libraries); in regular collectives (keep_empty) they are, so that a rank
 * whose count wrongly differs from its peers' still receives (and sees
 * MPI_ERR_TRUNCATE) and forwards, instead of leaving its peers waiting.
 * One message can say so itself (cx_sched_send_flags, CX_MSG_EMPTY): a
 * v-collective whose messages exist whatever their sizes (hier's pairwise
 * all-to-all).
 *
 * Errors never strand a peer: a step that fails records the first error
 * and the schedule goes on to its end (peers waiting for later messages of
 * this rank, e.g. a token, still get them); the executors return that
 * first error. */
#ifndef CX_SCHED_H
#define CX_SCHED_H

#include <stddef.h>
#include <mpi.h>

typedef struct cx_sched cx_sched;

/* Start step: posts at most one request (*req = MPI_REQUEST_NULL for
 * none). It may add ops to s: they go into new rounds after the last one
 * (a schedule that is built as it runs, e.g. once a tree is known). */
typedef int (*cx_start_fn)(cx_sched *s, void *ctx, MPI_Request *req);
/* Poll step: *done = 1 once its condition holds. Called repeatedly; the
 * executor calls into MPI between calls, so SMPI's clock moves. */
typedef int (*cx_poll_fn)(cx_sched *s, void *ctx, int *done);
/* A poll step's blocking twin (cx_sched_poll_wait): returns once the
 * condition holds, waiting as a blocking call would. */
typedef int (*cx_wait_fn)(cx_sched *s, void *ctx);

typedef enum {
    CX_OP_SEND, CX_OP_RECV, CX_OP_COPY, CX_OP_REDUCE, CX_OP_START, CX_OP_POLL
} cx_op_kind;

typedef struct cx_op {
    cx_op_kind kind;
    const void *src;      /* send / copy source / reduce input */
    void *dst;            /* recv / copy target / reduce inout */
    MPI_Aint count;       /* of type (send, recv, copy source, reduce) */
    MPI_Datatype type;
    MPI_Aint dcount;      /* copy target count */
    MPI_Datatype dtype;   /* copy target type */
    int peer, tag;
    int flags;            /* send, recv: CX_MSG_* */
    MPI_Comm comm;
    MPI_Op op;
    cx_start_fn start;
    cx_poll_fn poll;
    cx_wait_fn wait;      /* poll step: its blocking twin, or NULL */
    void *ctx;
    int done;             /* poll step: condition seen true */
} cx_op;

typedef struct cx_cleanup {   /* cx_sched_on_free */
    void (*fn)(void *ctx);
    void *ctx;
    struct cx_cleanup *next;
} cx_cleanup;

struct cx_sched {
    cx_op *ops;
    int nops, ops_cap;
    int *round_end;       /* round i = ops [round_end[i-1], round_end[i]) */
    int nrounds, rounds_cap;
    void **temps;
    int ntemps, temps_cap;
    char *arena;          /* small temporaries, bump-allocated: kept with
                           * the schedule's arrays across cx_sched_reset */
    size_t arena_used, arena_cap;
    MPI_Datatype *types;  /* derived types to free with the schedule */
    int ntypes, types_cap;
    MPI_Comm comm;        /* default communicator and tag of messages */
    int tag;
    int keep_empty;       /* send and receive zero-size messages too */
    int backoff;          /* wait between polls by cx_backoff alone (no MPI
                           * call: the polls make their own), not by
                           * cx_sched_idle's probe and yield */
    /* execution state */
    int cur;              /* round being executed */
    MPI_Request *reqs;
    MPI_Status *stats;    /* as many as reqs */
    int nreqs, reqs_cap, stats_cap;
    int npolls;           /* poll steps of the current round not yet true */
    int started;
    int err;              /* first error of any step */
    /* Persistent calls (cx_sched_plan_*): where a start begins, and
     * whether the rounds before it are set-up that runs once, at init. */
    int plan_state;       /* CX_PLAN_NO_SETUP, _SETUP_RUNNING, _MARKED */
    int plan_from;        /* the first round of a start (when marked) */
    int plan_setup;       /* executor: stop at plan_from (running set-up) */
    /* Optional, called before each round starts: may reorder the rounds
     * not started yet (cx_sched_sort_rounds), e.g. once an order is known. */
    void (*before_round)(struct cx_sched *s, int r);
    void *hook_ctx;
    cx_cleanup *cleanups;   /* latest first */
};

void cx_sched_init(cx_sched *s, MPI_Comm comm, int tag);
/* The same, for collective coll (decides keep_empty). */
void cx_sched_init_for(cx_sched *s, MPI_Comm comm, int tag, int coll);
/* Closes the current round: ops added after this go to the next one. */
int cx_sched_barrier(cx_sched *s);
int cx_sched_send(cx_sched *s, const void *buf, MPI_Aint count, MPI_Datatype t,
                  int peer);
int cx_sched_recv(cx_sched *s, void *buf, MPI_Aint count, MPI_Datatype t, int peer);
/* The same on another communicator and tag (sub-communicator schedules). */
int cx_sched_send_on(cx_sched *s, const void *buf, MPI_Aint count, MPI_Datatype t,
                     int peer, MPI_Comm comm, int tag);
int cx_sched_recv_on(cx_sched *s, void *buf, MPI_Aint count, MPI_Datatype t,
                     int peer, MPI_Comm comm, int tag);
/* Flags of one message (0: as the schedule says). */
enum {
    CX_MSG_EMPTY = 1,     /* sent and received even when of size zero */
    CX_MSG_EARLY = 2      /* posted in order with the round's local steps:
                           * before those added after it, not after all */
};
/* cx_sched_send_on / recv_on with flags. */
int cx_sched_send_flags(cx_sched *s, const void *buf, MPI_Aint count, MPI_Datatype t,
                        int peer, MPI_Comm comm, int tag, int flags);
int cx_sched_recv_flags(cx_sched *s, void *buf, MPI_Aint count, MPI_Datatype t,
                        int peer, MPI_Comm comm, int tag, int flags);
int cx_sched_copy(cx_sched *s, const void *src, MPI_Aint scount, MPI_Datatype st,
                  void *dst, MPI_Aint dcount, MPI_Datatype dt);
/* inout = in op inout, elementwise (in is the left operand, as in
 * MPI_Reduce_local). */
int cx_sched_reduce(cx_sched *s, const void *in, void *inout, MPI_Aint count,
                    MPI_Datatype t, MPI_Op op);
int cx_sched_start(cx_sched *s, cx_start_fn fn, void *ctx);
int cx_sched_poll(cx_sched *s, cx_poll_fn fn, void *ctx);
/* A poll step that a blocking wait may replace by wait (a child schedule:
 * finished with MPI_Waitall per round rather than tested): when a round
 * has no request left and only such steps, cx_sched_finish waits for them
 * in turn, unless other work is in flight on the progress agent. */
int cx_sched_poll_wait(cx_sched *s, cx_poll_fn fn, cx_wait_fn wait, void *ctx);
/* Sorts the first run of rounds at or after `from` that only talk to one
 * peer each by key[peer], stably; other rounds stay in place. The caller
 * knows that those rounds do not depend on each other. */
int cx_sched_sort_rounds(cx_sched *s, int from, const double *key);
/* Records err as the schedule's result (the first one wins) while it is
 * built: the schedule still runs to its end, so peers are served. */
void cx_sched_fail(cx_sched *s, int err);
/* Scratch memory that lives as long as the schedule (NULL on failure). */
void *cx_sched_alloc(cx_sched *s, size_t bytes);
/* Frees the temporaries (cx_sched_free). */
void cx_sched_free_temps(cx_sched *s);
/* Frees what a run kept (cx_sched_free's work) but keeps the arrays and
 * the arena: s is then as cx_sched_init left it, ready for
 * cx_sched_reuse, and building into it again allocates nothing. */
void cx_sched_reset(cx_sched *s);
/* cx_sched_init_for on a schedule that was reset (or zeroed): keeps its
 * arrays. */
void cx_sched_reuse(cx_sched *s, MPI_Comm comm, int tag, int coll);
/* A reset schedule kept per thread for blocking calls (NULL: none, then
 * the caller inits one of its own), and its return: kept if the slot is
 * free, else freed. Nested blocking calls simply find none. */
cx_sched *cx_sched_take_spare(void);
void cx_sched_give_spare(cx_sched *s);
/* Scratch able to hold count elements of t laid out as t does it (lb and
 * extent aware); returns the pointer to pass to MPI. */
void *cx_sched_alloc_typed(cx_sched *s, MPI_Aint count, MPI_Datatype t);
/* Commits t and frees it with the schedule. */
int cx_sched_own_type(cx_sched *s, MPI_Datatype t);
/* fn(ctx) when the schedule is freed, before its scratch memory (for what
 * a step keeps beyond one run: a child schedule that replays). */
int cx_sched_on_free(cx_sched *s, void (*fn)(void *ctx), void *ctx);

/* Persistent calls. A schedule whose rounds can run again as they are
 * (no step that keeps state between runs) is a plan: each start of a
 * persistent call replays it, with a tag of its own. The rounds a builder
 * marks as set-up (what depends only on the call's arguments: a tree's
 * construction) run once, when the persistent call is initialised: the
 * builder says cx_sched_plan_setup(s) while building, and once the
 * set-up's steps have added the rest (they may, at run time) one of them
 * says cx_sched_plan_here(s): starts begin with the rounds added after. */
enum { CX_PLAN_NO_SETUP, CX_PLAN_SETUP_RUNNING, CX_PLAN_MARKED };
void cx_sched_plan_setup(cx_sched *s);
void cx_sched_plan_here(cx_sched *s);
/* Closes the plan's last round and runs its set-up rounds (blocking;
 * nothing more without set-up). */
int cx_sched_plan_run_setup(cx_sched *s);
/* Begins a start of the plan: its rounds from plan_from, their messages on
 * s->comm retagged from s->tag to tag. Then cx_sched_progress/finish. */
int cx_sched_plan_start(cx_sched *s, int tag);
/* The same for a schedule whose messages on other communicators carry
 * s->tag too (collx's node, leader and column communicators): every
 * message with s->tag is retagged. */
int cx_sched_plan_start_all(cx_sched *s, int tag);

/* Whether s, built and run once, can run again as it is for a call with
 * the same arguments (cx_sched_plan_start): no start or poll step (they
 * keep state between runs), no cleanup, every temporary in its arena,
 * every message on s->comm with s->tag, and the run succeeded. */
int cx_sched_replayable(const cx_sched *s);

/* Executors (exec.c). */
int cx_sched_run(cx_sched *s);                 /* blocking */
int cx_sched_begin(cx_sched *s);               /* post the first round */
int cx_sched_progress(cx_sched *s, int *done); /* nonblocking step */
int cx_sched_finish(cx_sched *s);              /* block until done */
/* One turn of waiting: MPI progress, then the CPU to others (spins and
 * since pace SMPI's simulated sleep; 0 and a scratch double otherwise);
 * cx_backoff(&spins) alone when s->backoff. */
void cx_sched_idle(cx_sched *s, int spins, double *since);
/* The turn given away after cx_sched_idle's probe (idle.mpi.c, idle.smpi.c). */
void cx_idle_turn(int spins, double *since);
/* Waits politely, for loops that poll by themselves: a brief spin of
 * yields, then short sleeps (*spins counts the turns, from 0). */
void cx_backoff(int *spins);
/* Blocks until the poll step fn holds, waiting as cx_sched_finish does
 * (spinning first on real cores, then politely), without a schedule;
 * returns the error fn returned. fn is asked with s == NULL first and
 * while spinning, then with a stand-in schedule: it reports an error by
 * returning it, not with cx_sched_fail (comm: where the waits probe). */
int cx_wait_poll(MPI_Comm comm, cx_poll_fn fn, void *ctx);
/* Completes or cancels what was posted, then frees (any state). */
void cx_sched_free(cx_sched *s);
/* cx_sched_free's first part: cleanups, requests, derived types. */
void cx_sched_release(cx_sched *s);

#endif
