/* Where a blocking call's time goes (issue 61), for those who measure the
 * engine: built with cmake -DCOLLX_PHASES=ON, every blocking collx call
 * splits its time into consecutive phases, and each process prints the
 * mean per call at exit. Compiled out otherwise (the marks are empty). */
#ifndef CX_PHASES_H
#define CX_PHASES_H

enum {
    CX_PH_SELECT,        /* entry to the algorithm decided and counted */
    CX_PH_BUILD,         /* the algorithm builds its schedule */
    CX_PH_NODE_PUBLISH,  /* hier: sizes and small data into the node's lines */
    CX_PH_NODE_WAIT,     /* hier: the node's exchange */
    CX_PH_NODE_READ,     /* hier: small data read and folded */
    CX_PH_RUN,           /* the executor runs the schedule */
    CX_PH_DONE,          /* the schedule reset, the call returns */
    CX_PH_COUNT
};

#ifdef CX_PHASES
void cx_phase_start(void);   /* a blocking call begins */
void cx_phase_mark(int phase);   /* the time since the last mark was phase */
#define CX_PHASE_START() cx_phase_start()
#define CX_PHASE(p) cx_phase_mark(p)
#else
#define CX_PHASE_START() ((void)0)
#define CX_PHASE(p) ((void)0)
#endif

#endif
