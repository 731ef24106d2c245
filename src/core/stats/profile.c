/* The COLLX_STATS profile of this process (issue 52): per (collective,
 * communicator, blocking or not, class of message sizes) the calls and
 * their time, and per (communicator, collective, rule) the calls beyond the
 * rules' ranges; profile_report.c merges every rank's at MPI_Finalize.
 * Only measured calls come here (COLLX_STATS on).
 *
 * A communicator's record holds its size and what places its ranks on
 * nodes as the rules see them, learnt without a collective (a rank that
 * does not measure would never join one): its members' ranks in
 * MPI_COMM_WORLD, placed on the world's nodes at MPI_Finalize (fake
 * layouts too: they go by the rank in MPI_COMM_WORLD, nodes.c).
 * Communicators of the same members share a record (one made per loop
 * iteration costs no memory); a call finds its record through an
 * attribute, or this thread's last one without asking MPI. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "profile.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cx_profile_comm *records;   /* newest first */
static int nrecords;
static int keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

/* ------------------------------------------------------ finding a record */
/* Attributes gone so far, and this thread's last lookup (recent.h). */
static atomic_uint deleted;
static CX_RECENT_LOCAL cx_recent recent;

/* The record outlives the communicator (the report reads it). */
static int forget(MPI_Comm comm, int kv, void *attr, void *extra)
{
    (void)comm, (void)kv, (void)attr, (void)extra;
    cx_recent_forget(&deleted);
    return MPI_SUCCESS;
}

static void make_keyval(void)
{
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, forget, &keyval, NULL))
        keyval = MPI_KEYVAL_INVALID;
}

/* comm's members as ranks of MPI_COMM_WORLD (MPI_UNDEFINED: not in it),
 * malloc'ed; NULL on failure. */
static int *world_ranks(MPI_Comm comm, int size)
{
    int *in = malloc(sizeof(int) * (size_t)size), *out = malloc(sizeof(int) * (size_t)size);
    MPI_Group g = MPI_GROUP_NULL, w = MPI_GROUP_NULL;
    int ok = in && out && !PMPI_Comm_group(comm, &g) && !PMPI_Comm_group(MPI_COMM_WORLD, &w);
    for (int r = 0; ok && r < size; r++)
        in[r] = r;
    ok = ok && !PMPI_Group_translate_ranks(g, size, in, w, out);
    if (g != MPI_GROUP_NULL)
        PMPI_Group_free(&g);
    if (w != MPI_GROUP_NULL)
        PMPI_Group_free(&w);
    free(in);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

static int same(const cx_profile_comm *r, int size, const int *members)
{
    return r->size == size && !memcmp(r->members, members, sizeof(int) * (size_t)size);
}

/* The record of a communicator of size ranks, shared or new; takes
 * members. NULL on no memory. */
static cx_profile_comm *record(int size, int *members)
{
    pthread_mutex_lock(&lock);
    cx_profile_comm *r = records;
    while (r && !same(r, size, members))
        r = r->next;
    if (!r && (r = calloc(1, sizeof *r))) {
        r->id = nrecords++;
        r->size = size;
        r->nodes = r->ranks_per_node = -1;
        r->members = members;
        r->next = records;
        members = NULL;
        records = r;
    }
    pthread_mutex_unlock(&lock);
    free(members);
    return r;
}

cx_profile_comm *cx_profile_comm_of(MPI_Comm comm, int size)
{
    cx_profile_comm *r = cx_recent_get(&recent, &deleted, comm);
    int flag = 0, *members;
    if (r)
        return r;
    pthread_once(&keyval_once, make_keyval);
    if (keyval != MPI_KEYVAL_INVALID && !PMPI_Comm_get_attr(comm, keyval, &r, &flag) && flag) {
        cx_recent_set(&recent, &deleted, comm, r);
        return r;
    }
    if (!(members = world_ranks(comm, size)))
        return NULL;
    if ((r = record(size, members)) && keyval != MPI_KEYVAL_INVALID &&
        !PMPI_Comm_set_attr(comm, keyval, r))
        cx_recent_set(&recent, &deleted, comm, r);
    return r;
}

/* ------------------------------------------------------------ counting */
cx_profile_slot *cx_profile_slot_of(const cx_args *a, int rank, int size, int nonblocking)
{
    cx_profile_comm *r = cx_profile_comm_of(a->comm, size);
    if (!r)
        return NULL;
    _Atomic(cx_profile_slot *) *per = &r->per[a->coll];
    cx_profile_slot *s = atomic_load_explicit(per, memory_order_acquire), *none = NULL;
    if (!s) {   /* the first call of this collective here: its table */
        cx_profile_slot *fresh = calloc(2 * CX_PROFILE_CLASSES, sizeof *fresh);
        if (!fresh)
            return NULL;
        if (atomic_compare_exchange_strong(per, &none, fresh))
            s = fresh;
        else
            free(fresh), s = none;
    }
    /* a v-collective's size is this rank's view, for the profile only */
    int cls = cx_size_class(cx_coll_sized(a->coll) ? cx_rules_msg_size_of(a, rank)
                                                   : cx_v_msg_size(a, rank, size));
    return &s[(nonblocking != 0) * CX_PROFILE_CLASSES + cls];
}

void cx_profile_add(cx_profile_slot *s, long long ns)
{
    atomic_fetch_add_explicit(&s->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->ns, ns, memory_order_relaxed);
}

/* -------------------------------------------------- beyond the rules */
/* (record, collective, rule) -> calls, in a table of fixed size: a call
 * beyond the rules finds its entry without a lock. */
#define BEYOND_SLOTS 4096
static struct {
    atomic_ullong key;   /* 0: free */
    atomic_llong calls;
    atomic_int alg;      /* catalogue index of what the rule picks */
} beyond[BEYOND_SLOTS];

static unsigned long long beyond_key(int id, cx_coll coll, int rule)
{
    return (unsigned long long)(id + 1) << 32 | (unsigned long long)coll << 24 |
           (unsigned)(rule + 1);
}

void cx_profile_beyond(const cx_args *a, int rule, const cx_algorithm *alg)
{
    cx_profile_comm *r = cx_profile_comm_of(a->comm, a->size);
    if (!r || rule >= (1 << 23))
        return;
    unsigned long long key = beyond_key(r->id, a->coll, rule);
    for (unsigned i = (unsigned)(key * 0x9e3779b97f4a7c15ull >> 52), n = 0; n < BEYOND_SLOTS;
         i = (i + 1) % BEYOND_SLOTS, n++) {
        unsigned long long k = atomic_load_explicit(&beyond[i].key, memory_order_acquire);
        if (!k && atomic_compare_exchange_strong(&beyond[i].key, &k, key)) {
            atomic_store(&beyond[i].alg, cx_algorithm_index(alg));   /* read at the end */
            k = key;
        }
        if (k == key) {
            atomic_fetch_add_explicit(&beyond[i].calls, 1, memory_order_relaxed);
            return;
        }
    }
}

/* ------------------------------------------------------------- reading */
cx_profile_comm *cx_profile_records(void)
{
    return records;
}

int cx_profile_beyond_get(int i, int *id, int *coll, int *rule, int *alg, long long *calls)
{
    unsigned long long k = atomic_load(&beyond[i].key);
    if (!k)
        return 0;
    *id = (int)(k >> 32) - 1;
    *coll = (int)(k >> 24 & 0xff);
    *rule = (int)(k & 0xffffff) - 1;
    *alg = atomic_load(&beyond[i].alg);
    *calls = atomic_load(&beyond[i].calls);
    return 1;
}

int cx_profile_beyond_slots(void)
{
    return BEYOND_SLOTS;
}
