/* cx_sched_sort_rounds: one-peer rounds after `from` are reordered by key,
 * stably, ops travel with their round; a local op or a two-peer round ends
 * the sortable run. (The schedule is only built and inspected.) */
#include <stdio.h>
#include <mpi.h>
#include "../../src/core/persist/persist.h"

static int fails;

static void expect(int ok, const char *what)
{
    if (!ok) {
        printf("sched_sort: FAIL %s\n", what);
        fails++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int buf[16] = {0};
    cx_sched s;
    cx_sched_init(&s, MPI_COMM_SELF, 1);
    cx_sched_copy(&s, buf, 1, MPI_INT, buf + 1, 1, MPI_INT);   /* round 0: local */
    cx_sched_barrier(&s);
    const int peers[] = {5, 2, 7, 2, 1};   /* rounds 1..5, one peer each */
    for (int i = 0; i < 5; i++) {
        cx_sched_send(&s, buf + i, 1, MPI_INT, peers[i]);
        if (i == 2)   /* round 3 talks to 7 twice: still one peer */
            cx_sched_recv(&s, buf + 8, 1, MPI_INT, 7);
        cx_sched_barrier(&s);
    }
    cx_sched_send(&s, buf, 1, MPI_INT, 0);                      /* round 6: two peers */
    cx_sched_recv(&s, buf + 9, 1, MPI_INT, 3);
    cx_sched_barrier(&s);
    cx_sched_send(&s, buf, 1, MPI_INT, 0);                      /* round 7: after it */
    cx_sched_barrier(&s);
    const double key[8] = {0.0, 3.0, 1.0, 9.0, 9.0, 2.0, 0.5, 1.0};
    expect(cx_sched_sort_rounds(&s, 1, key) == MPI_SUCCESS, "returns MPI_SUCCESS");
    /* keys: 5->2.0, 2->1.0, 7->1.0, 2->1.0, 1->3.0; stable: 2, 7, 2, 5, 1 */
    const int want_peer[] = {2, 7, 2, 5, 1}, want_len[] = {1, 2, 1, 1, 1};
    for (int r = 1; r <= 5; r++) {
        int b = s.round_end[r - 1], e = s.round_end[r];
        expect(e - b == want_len[r - 1], "round length travels with the round");
        expect(s.ops[b].peer == want_peer[r - 1], "rounds sorted by key, stable");
    }
    expect(s.ops[s.round_end[1] - 2].src == buf + 1 || s.ops[1].src == buf + 1,
           "ops keep their buffers");
    expect(s.ops[s.round_end[2] - 1].kind == CX_OP_RECV, "the recv stays in peer 7's round");
    expect(s.ops[0].kind == CX_OP_COPY && s.round_end[0] == 1, "local round 0 in place");
    expect(s.ops[s.round_end[5]].peer == 0 && s.round_end[6] - s.round_end[5] == 2,
           "the two-peer round and what follows stay");
    cx_sched_free(&s);
    printf("sched_sort: %s\n", fails ? "FAILED" : "ok");
    MPI_Finalize();
    return fails != 0;
}
