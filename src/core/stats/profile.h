/* The COLLX_STATS profile inside the statistics room: profile.c counts a
 * process's calls per communicator record, profile_report.c merges the
 * ranks' at MPI_Finalize, profile_write.c writes them into the report. */
#ifndef CX_PROFILE_H
#define CX_PROFILE_H

#include <stdatomic.h>
#include "stats.h"

/* A record's slots per collective: [blocking 0, nonblocking 1][class],
 * classes cx_size_class (the v- and w-collectives' too: v_size.c). */
#define CX_PROFILE_CLASSES CX_SIZE_CLASSES

struct cx_profile_slot {
    atomic_llong calls, ns;
};

/* A communicator as the profile sees it (shared by communicators of the
 * same members). */
typedef struct cx_profile_comm {
    int id, size;
    int nodes, ranks_per_node;   /* -1 until placed at MPI_Finalize */
    int *members;                /* ranks in MPI_COMM_WORLD (MPI_UNDEFINED: not in it) */
    _Atomic(cx_profile_slot *) per[CX_COLL_COUNT];   /* made on first use */
    struct cx_profile_comm *next;
} cx_profile_comm;

/* comm's record (size ranks), made on its first call; NULL on failure. */
cx_profile_comm *cx_profile_comm_of(MPI_Comm comm, int size);
/* Every record, newest first (at MPI_Finalize). */
cx_profile_comm *cx_profile_records(void);
/* The calls beyond the rules (cx_profile_beyond): slot i's record id,
 * collective, rule (-1: none), algorithm index and calls; 0 if empty. */
int cx_profile_beyond_get(int i, int *id, int *coll, int *rule, int *alg, long long *calls);
int cx_profile_beyond_slots(void);

#endif
