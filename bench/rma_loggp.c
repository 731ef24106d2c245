#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* usleep */
#endif
/* LogGP parameters of a platform for the one-sided broadcast's model
 * (Paznikov 2024, section 2), measured with the primitives collx's
 * protocol uses, between rank 0 and each peer given (e.g. 1 = same node,
 * 8 = next node on the 8-core SMPI platforms):
 *
 *   pingpong m   two-sided half round trip (for reference)
 *   o_s          posting an MPI_Isend (the send overhead o)
 *   o_r          an MPI_Recv whose message was sent 2 ms earlier (SMPI
 *                matches messages only when both sides posted: there it
 *                includes the latency)
 *   g            gap: per message of a stream of 8-byte MPI_Isends (SMPI:
 *                again with the latency, see o_r)
 *   put m        MPI_Put of m bytes + MPI_Win_flush (the data of a stage)
 *   put2 m       data + 40-byte descriptor puts, one flush each (as collx)
 *   acc          MPI_Accumulate of one int64 + flush (flag, acknowledgement)
 *   fao          MPI_Fetch_and_op + flush (the lock's ticket)
 *   acc_self, fao_self   the same on rank 0's own window (lock at rank 0)
 *   poll_rma     one poll of the own control window by fetch-and-op(NO_OP)
 *                + flush (collx before; COLLX_RMA_POLL=rma)
 *   poll_load    one poll by MPI_Win_sync + load (unified model)
 *   iprobe       the MPI_Iprobe every forwarding step makes
 *   copy_bw      bytes/s of a local copy (SMPI: the rate collx charges)
 *
 * Each value is the mean over reps (SMPI is deterministic: few reps).
 * usage: rma_loggp CSV PLATFORM PEERS [reps]    PEERS: comma list
 * CSV rows: platform,peer,what,bytes,us */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "collx.h"

#define MAXB ((MPI_Aint)4 << 20)

static int rank, reps;
static char *buf;
static MPI_Win data, ctl;
static int64_t *ctl_base;
static FILE *out;
static const char *plat;

static void row(int peer, const char *what, long bytes, double us)
{
    if (rank == 0)
        fprintf(out, "%s,%d,%s,%ld,%.4f\n", plat, peer, what, bytes, us);
}

static int reps_for(long bytes)
{
    long n = reps * 4096L / (bytes > 4096 ? bytes : 4096);
    return n < 3 ? 3 : (int)n;
}

/* Half round trip of m bytes between 0 and peer. */
static void pingpong(int peer, long m)
{
    int n = reps_for(m);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(buf, (int)m, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)m, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == peer) {
            MPI_Recv(buf, (int)m, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)m, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    row(peer, "pingpong", m, (MPI_Wtime() - t0) / n / 2 * 1e6);
}

/* o_s: the MPI_Isend call; o_r: an MPI_Recv whose message arrived long
 * ago; g: per message of a stream of n Isends, until the peer's reply
 * minus one round trip. */
static void overheads(int peer)
{
    double os = 0, orr = 0, stream = 0, rtt = 0;
    int n = reps_for(8);
    MPI_Request *rq = malloc((size_t)n * sizeof *rq);
    for (int i = 0; i < n; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            double t0 = MPI_Wtime();
            MPI_Isend(buf, 8, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &rq[0]);
            os += MPI_Wtime() - t0;
            MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        } else if (rank == peer) {
            usleep(2000);
            double t0 = MPI_Wtime();
            MPI_Recv(buf, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            orr += MPI_Wtime() - t0;
        }
    }
    MPI_Bcast(&orr, 1, MPI_DOUBLE, peer, MPI_COMM_WORLD);
    for (int k = 1; k <= n; k += n - 1) {   /* k = 1, then k = n */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (rank == 0) {
            for (int i = 0; i < k; i++)
                MPI_Isend(buf + i, 1, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &rq[i]);
            for (int i = 0; i < k; i++)   /* not Waitall: MPICH's header warns */
                MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
            MPI_Recv(buf, 1, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == peer) {
            for (int i = 0; i < k; i++)
                MPI_Recv(buf + 64 + i % 64, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            MPI_Send(buf, 1, MPI_BYTE, 0, 4, MPI_COMM_WORLD);
        }
        if (k == 1)
            rtt = MPI_Wtime() - t0;
        else
            stream = MPI_Wtime() - t0;
        if (n == 1)
            break;
    }
    free(rq);
    row(peer, "o_s", 8, os / n * 1e6);
    row(peer, "o_r", 8, orr / n * 1e6);
    row(peer, "g", 8, n > 1 ? (stream - rtt) / (n - 1) * 1e6 : 0);
}

/* Origin-side time of one RMA pattern to target, repeated. */
enum { PUT, PUT2, ACC, FAO, POLL_RMA, POLL_LOAD, IPROBE };

static void rma_op(int kind, int target, long m)
{
    static int64_t one = 1, old, desc[5];
    int flag;
    switch (kind) {
    case PUT:
    case PUT2:
        MPI_Put(buf, (int)m, MPI_BYTE, target, 0, (int)m, MPI_BYTE, data);
        if (kind == PUT2)
            MPI_Put(desc, 5, MPI_INT64_T, target, 4, 5, MPI_INT64_T, ctl);
        MPI_Win_flush(target, data);
        if (kind == PUT2)
            MPI_Win_flush(target, ctl);
        break;
    case ACC:
        MPI_Accumulate(&one, 1, MPI_INT64_T, target, 1, 1, MPI_INT64_T, MPI_SUM, ctl);
        MPI_Win_flush(target, ctl);
        break;
    case FAO:
        MPI_Fetch_and_op(&one, &old, MPI_INT64_T, target, 2, MPI_SUM, ctl);
        MPI_Win_flush(target, ctl);
        break;
    case POLL_RMA:
        MPI_Fetch_and_op(&one, &old, MPI_INT64_T, target, 0, MPI_NO_OP, ctl);
        MPI_Win_flush(target, ctl);
        break;
    case POLL_LOAD:
        MPI_Win_sync(ctl);
        old += __atomic_load_n(&ctl_base[0], __ATOMIC_ACQUIRE);
        break;
    case IPROBE:
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        break;
    }
}

static void rma_time(int peer, const char *name, int kind, int target, long m)
{
    int n = reps_for(m);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; rank == 0 && i < n; i++)
        rma_op(kind, target, m);
    row(peer, name, m, (MPI_Wtime() - t0) / n * 1e6);
}

/* Local copy rate: SMPI charges collx's copies at COLLX_SMPI_COPY_BW (a
 * memcpy itself costs no simulated time; its value as collx reads it,
 * default included); real MPI: time a memcpy. */
static void copy_rate(void)
{
    char v[64];
    int given = 0;
    double bw = CX_Setting_get("COLLX_SMPI_COPY_BW", v, (int)sizeof v, &given) == MPI_SUCCESS &&
                given ? atof(v) : 0;
#ifndef SMPI_H
    char *dst = malloc((size_t)MAXB);
    memcpy(dst, buf, (size_t)MAXB);   /* first touch */
    double t0 = MPI_Wtime();
    for (int i = 0; i < 10; i++) {
        memcpy(dst, buf, (size_t)MAXB);
        __asm__ volatile("" : : "r"(dst) : "memory");   /* keep the copy */
    }
    bw = 10.0 * MAXB / (MPI_Wtime() - t0);
    free(dst);
#endif
    row(0, "copy_bw", 0, bw);
}

static void measure(int peer)
{
    /* 2-32 KiB closely: LL messages (src/rma/ll.h) fall between SMPI's
     * bandwidth-factor bands, which an interpolation must see. */
    static const long sizes[] = {8,    1024,  2048,  4096,   6144,   8192,   10240,  12288,
                                 16384, 24576, 32768, 65536, 262144, 1048576, 4194304};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        pingpong(peer, sizes[i]);
    overheads(peer);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        rma_time(peer, "put", PUT, peer, sizes[i]);
        rma_time(peer, "put2", PUT2, peer, sizes[i]);
    }
    rma_time(peer, "acc", ACC, peer, 8);
    rma_time(peer, "fao", FAO, peer, 8);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: rma_loggp CSV PLATFORM PEERS [reps]\n");
        MPI_Finalize();
        return 2;
    }
    plat = argv[2];
    reps = argc > 4 ? atoi(argv[4]) : 200;
    if (rank == 0 && !(out = fopen(argv[1], "a"))) {
        perror(argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Win_allocate(MAXB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &data);
    MPI_Win_allocate(16 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &ctl_base, &ctl);
    memset(buf, 1, (size_t)MAXB);
    memset(ctl_base, 0, 16 * sizeof(int64_t));
    MPI_Win_lock_all(MPI_MODE_NOCHECK, data);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, ctl);
    for (char *s = argv[3]; *s;) {
        int peer = (int)strtol(s, &s, 10);
        if (*s == ',')
            s++;
        if (peer > 0 && peer < size)
            measure(peer);
    }
    rma_time(0, "acc_self", ACC, 0, 8);
    rma_time(0, "fao_self", FAO, 0, 8);
    rma_time(0, "poll_rma", POLL_RMA, 0, 8);
    rma_time(0, "poll_load", POLL_LOAD, 0, 8);
    rma_time(0, "iprobe", IPROBE, 0, 8);
    if (rank == 0)
        copy_rate();
    MPI_Win_unlock_all(ctl);
    MPI_Win_unlock_all(data);
    MPI_Win_free(&ctl);
    MPI_Win_free(&data);
    if (rank == 0)
        fclose(out);
    MPI_Finalize();
    return 0;
}
