/* The lowest room of the core (docs/design/layers.md): the collectives'
 * names and shapes, the catalogue as data, the knobs, the JSON reader, the
 * SMPI build's per-route message costs and its selector (smpi_routes.cpp,
 * smpi_selector.cpp), and how collx speaks (COLLX_VERBOSE, messages, errors through the
 * communicator's handler). It includes nothing of the rooms above. */
#ifndef CX_UTIL_H
#define CX_UTIL_H

#include <mpi.h>
#include "collx.h"
#include "colls.h"
#include "catalogue.h"
#include "json.h"
#include "knobs.h"
#include "smpi_routes.h"
#include "smpi_selector.h"
#include "sim.h"

/* The MPI a library's version text (MPI_Get_library_version) names:
 * "Intel MPI", "Open MPI" or "MPICH", and its major version in *major;
 * NULL (and 0) for another. */
const char *cx_mpi_family(const char *text, int *major);
/* COLLX_VERBOSE (0 when unset): 1 = each selection once, 2 = every call. */
int cx_verbose(void);
/* One line "collx: ..." on stderr. */
void cx_say(const char *fmt, ...);
/* Reports err through comm's error handler; returns err. */
int cx_error(MPI_Comm comm, int err, const char *fmt, ...);

#endif
