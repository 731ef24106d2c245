/* PAP state of a communicator seen from the algorithms and engines: the
 * state itself, tags of background calls, the arrival exchange, the
 * predicted order and the record of each arrival (the API that fills it
 * is pat.c). */
#include "pap.h"

int cx_pap_slot;   /* the key of this family's state (util/catalogue.h) */

/* Weight of the newest prediction error in the bias (EMA). */
#define PAP_EMA 0.3

cx_pap *cx_pap_get(MPI_Comm comm)
{
    cx_comm *c;
    if (comm == MPI_COMM_NULL || cx_comm_get(comm, &c))
        return NULL;
    return cx_comm_state_of(c, cx_pap_slot);
}

const cx_algorithm *cx_pap_reg_alg(cx_pap *pap)
{
    int err;
    const cx_knob_params *params;   /* PAP's algorithms read no per-call knob */
    const cx_algorithm *alg = cx_select(&pap->reg, pap->cc, &params, &err);
    return err ? NULL : alg;
}

int cx_pap_tag(unsigned seq)
{
    return (int)(seq % 32000u) + 1;
}

/* Waits for (done == NULL) or tests the exchange; on completion the new
 * vector becomes the current one. */
static int finish_exchange(cx_pap *pap, int *done)
{
    int flag = 1, err = MPI_SUCCESS;
    if (pap->xreq != MPI_REQUEST_NULL) {
        err = done ? PMPI_Test(&pap->xreq, &flag, MPI_STATUS_IGNORE)
                   : PMPI_Wait(&pap->xreq, MPI_STATUS_IGNORE);
        if (!err && flag) {
            double *t = pap->cur;
            pap->cur = pap->next;
            pap->next = t;
            pap->have_cur = 1;
        }
    }
    if (done)
        *done = flag;
    return err;
}

int cx_pap_complete(cx_pap *pap)
{
    return finish_exchange(pap, NULL);
}

int cx_pap_test(cx_pap *pap, int *done)
{
    return finish_exchange(pap, done);
}

void cx_pap_record_arrival(cx_pap *pap)
{
    if (pap->have_raw) {
        double err = PMPI_Wtime() - pap->raw;
        pap->bias = pap->nobs++ ? pap->bias + PAP_EMA * (err - pap->bias) : err;
        pap->have_raw = 0;
    }
}

const int *cx_pap_order(cx_pap *pap, int root, int stale)
{
    const double *t = stale ? pap->snap : pap->cur;
    if (!(stale ? pap->have_snap : pap->have_cur))
        return NULL;
    int n = 0;
    for (int r = 0; r < pap->size; r++)
        if (r != root)
            pap->order[1 + n++] = r;
    /* Insertion sort by (predicted arrival, rank): same result everywhere. */
    int *o = pap->order + 1;
    for (int i = 1; i < n; i++) {
        int r = o[i], j = i;
        while (j > 0 && (t[o[j - 1]] > t[r] || (t[o[j - 1]] == t[r] && o[j - 1] > r))) {
            o[j] = o[j - 1];
            j--;
        }
        o[j] = r;
    }
    pap->order[0] = root;
    return pap->order;
}

const cx_pap_alg *cx_pap_alg_of(const cx_algorithm *alg)
{
    return alg && cx_algorithm_family(alg) == cx_pap_slot ? alg->family_data : NULL;
}
