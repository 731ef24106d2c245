/* What a message costs on this machine, in the terms SMPI's model takes:
 * the measurements `collx calibrate` fits a platform to (issue 74;
 * docs/guide/calibrate.md). The same source runs on a real MPI and in
 * SMPI, so that the fitted platform can be measured the same way.
 *
 * Between rank 0 and a partner on its own node (route "node": the second
 * rank of rank 0's node) and on another node (route "net": the lowest
 * rank of another node), where the launch has them, for each size:
 *
 *   pingpong  half a round trip (one message there, one back)
 *   send      the sender's time per message of a burst of K, the
 *             receives posted before it starts (CPU overhead o_s)
 *   recv      the receiver's time per message to take K messages that
 *             were sent before it looked (CPU overhead o_r)
 *   stream    time per message of K back-to-back messages, from the
 *             first send to the receiver's acknowledgement, less that
 *             of one (the gap: the larger of the overheads and m / bw)
 *   exchange  both send to the other at once (MPI_Sendrecv): what a step
 *             of recursive doubling or a ring costs
 *
 * and, on a real MPI only (SMPI does not time local work), on rank 0
 * alone (route "local") memcpy and MPI_Reduce_local (doubles, MPI_SUM),
 * and the same of data its node partner has just written into
 * node-shared memory (route "node", kinds "xcopy", "xreduce").
 *
 * Every value is the median (and the minimum) over --reps batches, each
 * batch the mean of its iterations. Ranks other than the two measured
 * wait in MPI_Barrier. Output: a table on stdout, rows with --csv FILE:
 *   route,kind,bytes,median_s,min_s,iters
 *
 * usage: calibench [-m MIN:MAX] [--reps R] [--csv FILE] [-q] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

enum { TAG_DATA = 1, TAG_CTL = 2, MAX_REPS = 31, BURST = 16 };

typedef struct {
    size_t min, max;
    int reps, quiet;
    const char *csv;
} options;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Iterations per batch: about 4 MiB moved, 4 to 1000. */
static int iters_for(size_t m)
{
    size_t n = ((size_t)4 << 20) / (m + 256);
    return n < 4 ? 4 : n > 1000 ? 1000 : (int)n;
}

/* Messages per burst: BURST, fewer where K messages would pass 16 MiB. */
static int burst_for(size_t m)
{
    size_t k = ((size_t)16 << 20) / (m + 1);
    return k < 2 ? 2 : k > BURST ? BURST : (int)k;
}

static void ctl_send(int peer, MPI_Comm c) { MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_CTL, c); }
static void ctl_recv(int peer, MPI_Comm c)
{
    MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_CTL, c, MPI_STATUS_IGNORE);
}

/* One batch of ping-pongs; seconds per one-way message. Each side sends
 * from one buffer and receives into another, as a collective does:
 * sending back the lines it has just received costs a large message up
 * to twice as much (256 KiB, both MPIs here). */
static double pingpong(int lead, int peer, char *buf, size_t m, int n, MPI_Comm c)
{
    char *in = buf + m;
    double t = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (lead) {
            MPI_Send(buf, (int)m, MPI_BYTE, peer, TAG_DATA, c);
            MPI_Recv(in, (int)m, MPI_BYTE, peer, TAG_DATA, c, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, (int)m, MPI_BYTE, peer, TAG_DATA, c, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)m, MPI_BYTE, peer, TAG_DATA, c);
        }
    }
    return (MPI_Wtime() - t) / (2.0 * n);
}

/* k messages of m bytes to or from peer, nonblocking (receives into k
 * consecutive blocks of buf, sends all from its start). */
static void post(int recv, MPI_Request *rq, char *buf, size_t m, int k, int peer, MPI_Comm c)
{
    for (int i = 0; i < k; i++) {
        if (recv)
            MPI_Irecv(buf + (size_t)i * m, (int)m, MPI_BYTE, peer, TAG_DATA, c, &rq[i]);
        else
            MPI_Isend(buf, (int)m, MPI_BYTE, peer, TAG_DATA, c, &rq[i]);
    }
}

/* The k requests done. (Real statuses: GCC 12 reads MPICH's access
 * attributes as MPI_STATUSES_IGNORE being an array of none.) */
static void wait_all(MPI_Request *rq, int k)
{
    MPI_Status st[BURST];
    MPI_Waitall(k, rq, st);
}

/* k back-to-back messages from the lead, the receives posted before it
 * starts. The lead's seconds until its sends completed (*sent: the
 * sender's time) and until the receiver's acknowledgement (*acked: the
 * burst's whole time, whose growth with k is the gap). */
static void sender_burst(int lead, int peer, char *buf, size_t m, int k, MPI_Comm c,
                         double *sent, double *acked)
{
    MPI_Request rq[BURST];
    if (lead) {
        ctl_recv(peer, c);
        double t = MPI_Wtime();
        post(0, rq, buf, m, k, peer, c);
        wait_all(rq, k);
        *sent = MPI_Wtime() - t;
        ctl_recv(peer, c);
        *acked = MPI_Wtime() - t;
    } else {
        post(1, rq, buf, m, k, peer, c);
        ctl_send(peer, c);
        wait_all(rq, k);
        ctl_send(peer, c);
        *sent = *acked = 0;
    }
}

/* K receives timed by the receiver, the messages sent before it posts
 * them (the control message follows them). The lead is the receiver. */
static double recv_burst(int lead, int peer, char *buf, size_t m, int k, MPI_Comm c)
{
    MPI_Request rq[BURST];
    double t = 0;
    if (lead) {
        ctl_recv(peer, c);
        t = MPI_Wtime();
        post(1, rq, buf, m, k, peer, c);
        wait_all(rq, k);
        t = (MPI_Wtime() - t) / k;
        ctl_send(peer, c);
    } else {
        post(0, rq, buf, m, k, peer, c);
        ctl_send(peer, c);
        wait_all(rq, k);
        ctl_recv(peer, c);
    }
    return t;
}

/* One batch of exchanges: both send m bytes to the other at once
 * (MPI_Sendrecv), as a step of recursive doubling or a ring does; seconds
 * per exchange. On shared memory each core then copies in and out, where
 * a ping-pong's message is copied by the two cores at once. */
static double exchange(int peer, char *buf, size_t m, int n, MPI_Comm c)
{
    double t = MPI_Wtime();
    for (int i = 0; i < n; i++)
        MPI_Sendrecv(buf, (int)m, MPI_BYTE, peer, TAG_DATA, buf + m, (int)m, MPI_BYTE, peer,
                     TAG_DATA, c, MPI_STATUS_IGNORE);
    return (MPI_Wtime() - t) / n;
}

typedef struct {
    FILE *csv;
    int quiet;
} sink;

static void emit(const sink *s, const char *route, const char *kind, size_t m,
                 double *v, int reps, int iters)
{
    qsort(v, (size_t)reps, sizeof *v, cmp_double);
    double med = reps % 2 ? v[reps / 2] : 0.5 * (v[reps / 2 - 1] + v[reps / 2]);
    if (!s->quiet)
        printf("%-5s %-8s %9zu B  %10.3f us  (min %.3f)\n", route, kind, m, med * 1e6,
               v[0] * 1e6);
    if (s->csv)
        fprintf(s->csv, "%s,%s,%zu,%.9g,%.9g,%d\n", route, kind, m, med, v[0], iters);
}

/* Every kind at every size between rank 0 (lead) and partner; the two
 * ranks run this, rank 0 writes. */
static void measure_route(const char *route, int lead, int peer, const options *o,
                          const sink *s, MPI_Comm c)
{
    size_t cap = 1;   /* a burst's receives, or a ping-pong's two buffers */
    for (size_t m = o->min ? o->min : 1; m <= o->max; m *= 2) {
        size_t need = (size_t)burst_for(m) * m > 2 * m ? (size_t)burst_for(m) * m : 2 * m;
        cap = need > cap ? need : cap;
    }
    char *buf = calloc(cap, 1);
    double v[MAX_REPS], w[MAX_REPS], x[MAX_REPS];
    if (!buf) {
        fprintf(stderr, "calibench: out of memory (%zu bytes)\n", cap);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t m = o->min; m <= o->max; m = m ? 2 * m : 1) {
        int n = iters_for(m), k = burst_for(m);
        pingpong(lead, peer, buf, m, n / 4 + 1, c);    /* warm-up */
        for (int r = 0; r < o->reps; r++)
            v[r] = pingpong(lead, peer, buf, m, n, c);
        if (lead)
            emit(s, route, "pingpong", m, v, o->reps, n);
        exchange(peer, buf, m, n / 4 + 1, c);   /* warm-up */
        for (int r = 0; r < o->reps; r++)
            v[r] = exchange(peer, buf, m, n, c);
        if (lead)
            emit(s, route, "exchange", m, v, o->reps, n);
        for (int r = 0; r < o->reps; r++) {   /* one message, then a burst of k */
            double one_sent;
            sender_burst(lead, peer, buf, m, 1, c, &one_sent, &w[r]);
            sender_burst(lead, peer, buf, m, k, c, &v[r], &x[r]);
            v[r] /= k;
        }
        if (lead)
            emit(s, route, "send", m, v, o->reps, k);
        for (int r = 0; r < o->reps; r++)
            v[r] = recv_burst(lead, peer, buf, m, k, c);
        if (lead)
            emit(s, route, "recv", m, v, o->reps, k);
        qsort(w, (size_t)o->reps, sizeof *w, cmp_double);
        for (int r = 0; r < o->reps; r++)   /* less the median single message */
            x[r] = (x[r] - w[o->reps / 2]) / (k - 1);
        if (lead)
            emit(s, route, "stream", m, x, o->reps, k);
        if (m == 0 && o->max == 0)
            break;
    }
    free(buf);
}

#ifndef CALIBENCH_SMPI
/* What a node phase copies: rank 0 copies (or reduces into its own
 * vector) m bytes its partner has just written into node-shared memory,
 * so the lines come from the other core's cache, as in hier's phases.
 * One copy per handshake (untimed), median of 3 x reps. role: 0 rank 0,
 * 1 its partner on the node, 2 any other rank (it allocates nothing). */
static void measure_shared(int role, int peer, const options *o, const sink *s,
                           MPI_Comm node)
{
    size_t top = o->max < ((size_t)1 << 16) ? ((size_t)1 << 16) : o->max;
    char *seg;
    MPI_Win win;
    MPI_Aint size;
    int disp, reps = 3 * o->reps, owner = -1;
    MPI_Comm wc = MPI_COMM_WORLD;
    MPI_Win_allocate_shared(role == 1 ? (MPI_Aint)top : 0, 1, MPI_INFO_NULL, node, &seg,
                            &win);
    if (role == 0) {   /* the partner's rank in node: its segment */
        MPI_Group gw, gn;
        MPI_Comm_group(wc, &gw);
        MPI_Comm_group(node, &gn);
        MPI_Group_translate_ranks(gw, 1, &peer, gn, &owner);
        MPI_Group_free(&gw);
        MPI_Group_free(&gn);
        MPI_Win_shared_query(win, owner, &size, &disp, &seg);
    }
    double *own = role == 0 ? calloc(top / sizeof(double) + 1, sizeof(double)) : NULL;
    double v[3 * MAX_REPS];
    if (role == 0 && !own) {
        fprintf(stderr, "calibench: out of memory (%zu bytes)\n", top);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t m = 64; role < 2 && m <= top; m *= 4) {
        for (int kind = 0; kind < 2; kind++) {
            for (int r = 0; r < reps; r++) {
                if (role == 1) {
                    memset(seg, r + kind, m);
                    ctl_send(peer, wc);
                    ctl_recv(peer, wc);
                    continue;
                }
                ctl_recv(peer, wc);
                double t = MPI_Wtime();
                if (kind == 0)
                    memcpy(own, seg, m);
                else
                    MPI_Reduce_local(seg, own, (int)(m / sizeof(double)), MPI_DOUBLE, MPI_SUM);
                __asm__ volatile("" ::: "memory");
                v[r] = MPI_Wtime() - t;
                ctl_send(peer, wc);
            }
            if (role == 0)
                emit(s, "node", kind ? "xreduce" : "xcopy", m, v, reps, 1);
        }
    }
    free(own);
    MPI_Win_free(&win);
}

/* memcpy and MPI_Reduce_local on one rank: the node's local work. */
static void measure_local(const options *o, const sink *s)
{
    size_t top = o->max < ((size_t)1 << 16) ? ((size_t)1 << 16) : o->max;
    double *a = calloc(top / sizeof(double) + 1, sizeof(double));
    double *b = calloc(top / sizeof(double) + 1, sizeof(double));
    double v[MAX_REPS];
    if (!a || !b) {
        fprintf(stderr, "calibench: out of memory (%zu bytes)\n", 2 * top);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t m = 64; m <= top; m *= 4) {
        int n = iters_for(m) * 4;
        for (int kind = 0; kind < 2; kind++) {
            for (int r = 0; r < o->reps; r++) {
                double t = MPI_Wtime();
                for (int i = 0; i < n; i++) {
                    if (kind == 0)
                        memcpy(b, a, m);
                    else
                        MPI_Reduce_local(a, b, (int)(m / sizeof(double)), MPI_DOUBLE,
                                         MPI_SUM);
                    __asm__ volatile("" ::: "memory");
                }
                v[r] = (MPI_Wtime() - t) / n;
            }
            emit(s, "local", kind ? "reduce" : "copy", m, v, o->reps, n);
        }
    }
    free(a);
    free(b);
}
#endif

static size_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (*end == 'K' || *end == 'k')
        v *= 1024;
    else if (*end == 'M' || *end == 'm')
        v *= 1024 * 1024;
    return v < 0 ? 0 : (size_t)v;
}

static int parse(int argc, char **argv, options *o)
{
    *o = (options){.min = 1, .max = (size_t)4 << 20, .reps = 7};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-q"))
            o->quiet = 1;
        else if (!strcmp(a, "-m") && next && strchr(next, ':')) {
            o->min = parse_size(next);
            o->max = parse_size(strchr(next, ':') + 1);
            i++;
        } else if (!strcmp(a, "--reps") && next) {
            o->reps = atoi(next);
            i++;
        } else if (!strcmp(a, "--csv") && next) {
            o->csv = next;
            i++;
        } else
            return 0;
    }
    return o->reps >= 1 && o->reps <= MAX_REPS && o->min <= o->max &&
           o->max <= ((size_t)1 << 30);
}

/* The partners of rank 0: on its node and on another (-1: none). */
static void partners(MPI_Comm world, int *on_node, int *off_node)
{
    int rank, size, me;
    MPI_Comm node;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &me);
    int leader = rank;
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);   /* the lowest world rank of my node */
    int *leaders = malloc((size_t)size * sizeof *leaders);
    MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, world);
    *on_node = *off_node = -1;
    for (int r = 1; r < size; r++) {
        if (leaders[r] == leaders[0] && *on_node < 0)
            *on_node = r;
        if (leaders[r] != leaders[0] && *off_node < 0)
            *off_node = r;
    }
    free(leaders);
    MPI_Comm_free(&node);
}

int main(int argc, char **argv)
{
    options o;
    int rank, size, on_node, off_node;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!parse(argc, argv, &o)) {
        if (rank == 0)
            fprintf(stderr, "usage: calibench [-m MIN:MAX] [--reps R (1-%d)] [--csv FILE] "
                    "[-q]\n", MAX_REPS);
        MPI_Finalize();
        return 2;
    }
    partners(MPI_COMM_WORLD, &on_node, &off_node);
    sink s = {NULL, o.quiet};
    int ok = 1;
    if (rank == 0 && o.csv && !(s.csv = fopen(o.csv, "w"))) {
        fprintf(stderr, "calibench: cannot write %s\n", o.csv);
        ok = 0;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        MPI_Finalize();
        return 2;
    }
    if (s.csv)
        fprintf(s.csv, "route,kind,bytes,median_s,min_s,iters\n");
    if (rank == 0)   /* even with -q: collx calibrate reads the layout from it */
        printf("# calibench: %d ranks; partner on rank 0's node: %d, on another node: %d\n",
               size, on_node, off_node);
    const char *names[2] = {"node", "net"};
    int peers[2] = {on_node, off_node};
    for (int k = 0; k < 2; k++) {
        if (peers[k] < 0)
            continue;
        if (rank == 0 || rank == peers[k])
            measure_route(names[k], rank == 0, rank == 0 ? peers[k] : 0, &o, &s,
                          MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
#ifndef CALIBENCH_SMPI
    if (rank == 0)
        measure_local(&o, &s);
    if (on_node > 0) {   /* every node allocates its window; rank 0's copies */
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        int role = rank == 0 ? 0 : rank == on_node ? 1 : 2;
        measure_shared(role, rank == 0 ? on_node : 0, &o, &s, node);
        MPI_Comm_free(&node);
    }
#endif
    if (s.csv)
        fclose(s.csv);
    MPI_Finalize();
    return 0;
}
