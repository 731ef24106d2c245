/* Error reporting through the user's error handler, and COLLX_VERBOSE. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "util.h"

int cx_verbose(void)
{
    return (int)cx_knob_int(CX_KNOB_VERBOSE);
}

void cx_say(const char *fmt, ...)
{
    va_list ap;
    char line[512];
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "collx: %s\n", line);   /* one write: lines never mix */
}

int cx_error(MPI_Comm comm, int err, const char *fmt, ...)
{
    if (cx_verbose() > 0) {
        va_list ap;
        char line[512];
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        fprintf(stderr, "collx: error: %s\n", line);
    }
    /* MPI_COMM_NULL has no handler: MPI reports those on MPI_COMM_WORLD. */
    MPI_Comm on = comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm;
    if (CX_SIMULATED) {
        /* SimGrid 3.32's MPI_Comm_call_errhandler calls the handler's
         * function even for the predefined handlers, which have none (a
         * null call): do what they would. */
        MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
        PMPI_Comm_get_errhandler(on, &eh);
        if (eh == MPI_ERRORS_RETURN)
            return err;
        if (eh == MPI_ERRORS_ARE_FATAL)
            PMPI_Abort(on, err);
    }
    PMPI_Comm_call_errhandler(on, err);
    return err;
}
