/* The progress agent: one per process, shared by every family. Work that
 * must advance while the application is away from MPI (a nonblocking
 * collective's schedule, PAP's early start, RMA forwarding) is a job: a
 * nonblocking step function called until it says it is finished. Jobs run
 * inside every collx call and CX_Test/CX_Wait (inline progress), and on a
 * progress thread when one is running (it needs MPI_THREAD_MULTIPLE; SMPI
 * has none, there eager posting is the background progress). */
#ifndef CX_PROGRESS_H
#define CX_PROGRESS_H

typedef struct cx_job {
    int (*step)(void *ctx);   /* one nonblocking step; 1 = finished */
    void *ctx;
    int finished;
    int idle;   /* cx_progress_idle: nobody waits on it now */
    /* Set for a job handed over (cx_progress_hand_over): called once the
     * step said finished, after the job left the list. */
    void (*finish)(void *ctx);
    struct cx_job *next;
} cx_job;

/* Hands job to the agent (the caller keeps the memory). */
void cx_progress_add(cx_job *job, int (*step)(void *ctx), void *ctx);
/* Hands job to the agent for good: nobody takes it back; once its step
 * says finished the agent drops it and calls finish(ctx) (from whichever
 * thread passed, holding the agent's lock: finish must not call into
 * the agent). For work whose owner is not there to take it back: an
 * MPI request the program completes with MPI's own calls. */
void cx_progress_hand_over(cx_job *job, int (*step)(void *ctx), void (*finish)(void *ctx),
                           void *ctx);
/* Whether any job on the agent may be awaited by another process: one
 * that is not idle (a relaxed read, for fast paths). While there is none,
 * a blocking wait need not poll: MPI's own wait is enough. */
int cx_progress_pending(void);
/* A job that lives on between calls (RMA forwarding) says, from its step,
 * whether another process may be waiting on it right now (0) or not (1).
 * Jobs start busy. An idle job is still stepped by every pass: it finds
 * new work there, which only a later collective of this process waits
 * for (so a blocking call in between does not need it). */
void cx_progress_idle(cx_job *job, int idle);
/* Takes job back: afterwards the agent never calls it again (waits if it
 * runs right now). Returns whether it had finished. */
int cx_progress_remove(cx_job *job);
/* Takes back the first handed-over job that match accepts and that has
 * not finished: the agent never calls it again, and its finish is the
 * caller's to call once the work is done. NULL when there is none (it
 * finished, or was never handed over). For a program that waits on one
 * such request: its owner runs it as a blocking call would. */
cx_job *cx_progress_take(int (*match)(const cx_job *job, const void *arg), const void *arg);
/* One pass over every job (cheap when there are none). */
void cx_progress_poke(void);
/* Starts the progress thread if every condition holds (MPI_THREAD_MULTIPLE
 * provided, not SMPI); 1 if it runs. Stopped at MPI_Finalize. */
int cx_progress_thread(void);
/* COLLX_PROGRESS=thread: the user asked for the thread for all requests. */
int cx_progress_thread_wanted(void);

#endif
