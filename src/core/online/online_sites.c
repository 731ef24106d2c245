/* The call sites of online tuning as records (online.h): this process's
 * (a site settles or is loaded from the cache on a communicator whose
 * rank 0 this process is), and at rank 0 after the end every rank's. */
#include <pthread.h>
#include <stdlib.h>
#include "online.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static cx_online_site *mine;
static int nmine, capmine;
static cx_online_site *all;
static int nall = -1;

void cx_online_record(const cx_online_site *s)
{
    pthread_mutex_lock(&lock);
    if (nmine == capmine) {
        int cap = capmine ? 2 * capmine : 16;
        cx_online_site *grown = realloc(mine, sizeof *mine * (size_t)cap);
        if (grown) {
            mine = grown;
            capmine = cap;
        }
    }
    if (nmine < capmine)
        mine[nmine++] = *s;
    pthread_mutex_unlock(&lock);
}

int cx_online_mine(const cx_online_site **sites)
{
    *sites = mine;
    return nmine;
}

void cx_online_set_sites(cx_online_site *sites, int n)
{
    all = sites;
    nall = n;
}

int cx_online_sites(const cx_online_site **sites)
{
    *sites = all;
    return nall;
}
