/* The selection (docs/design/layers.md): the registry (searching the
 * catalogue), the always-on counters, COLLX_RULES, the choice and the
 * decision for a call (requirements, fallbacks, a policy's pick: the
 * hook online tuning registers), argument checks, and the settings every
 * rank must share. It includes the engine and util. */
#ifndef CX_SELECT_H
#define CX_SELECT_H

#include "../engine/engine.h"
#include "decide_call.h"
#include "decision.h"
#include "registry.h"

/* Checks the arguments (validate.c); MPI_SUCCESS or an MPI error class. */
int cx_validate(const cx_args *a);

/* Settings every rank must share (settings.c): compared at MPI_Init by
 * the interposer (point-to-point to rank 0, COLLX_CHECK_TIMEOUT). The
 * message (rank 0's) when coll's differ, else NULL; and whether some rank
 * did not answer (collx then hands every call to the MPI). */
void cx_settings_check(void);
const char *cx_settings_differ(int coll);
int cx_settings_native(void);
/* Whether every rank loads collx with COLLX_STATS on, as the check found:
 * 1 yes, 0 no (the report at MPI_Finalize cannot run), -1 not checked. */
int cx_settings_stats_everywhere(void);

#endif
