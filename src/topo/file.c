/* COLLX_TOPO_FILE: a distance matrix as text, so a measurement can be kept
 * and reused, or a matrix written by hand (e.g. the paper's Fig. 1):
 *
 *     # anything after '#' is a comment
 *     p 8
 *     0 0.012235 0.012359 ...     (p rows of p distances, any unit)
 */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "topo.h"

/* Next number of f, skipping blanks and comments; 0 at the end or on junk. */
static int next_number(FILE *f, double *x)
{
    int ch;
    for (;;) {
        ch = fgetc(f);
        if (ch == '#')
            while (ch != '\n' && ch != EOF)
                ch = fgetc(f);
        if (ch == EOF)
            return 0;
        if (!strchr(" \t\r\n", ch))
            break;
    }
    ungetc(ch, f);
    return fscanf(f, "%lf", x) == 1;
}

int cx_topo_load(const char *path, int p, double *d, int *found)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return MPI_ERR_FILE;
    double x;
    int ch = ' ', ok = 1;
    *found = -1;
    /* "p N" */
    while (ok && (ch = fgetc(f)) != EOF && ch != 'p')
        if (ch == '#')
            while ((ch = fgetc(f)) != '\n' && ch != EOF)
                ;
        else if (!strchr(" \t\r\n", ch))
            ok = 0;
    if (!ok || ch != 'p' || fscanf(f, "%d", found) != 1 || *found < 1) {
        fclose(f);
        return MPI_ERR_FILE;
    }
    if (*found != p) {
        fclose(f);
        return MPI_ERR_SIZE;
    }
    for (size_t i = 0; i < (size_t)p * p && ok; i++)
        ok = next_number(f, &d[i]) && d[i] >= 0;
    if (ok && next_number(f, &x))
        ok = 0;   /* more numbers than p x p */
    fclose(f);
    return ok ? MPI_SUCCESS : MPI_ERR_FILE;
}

/* Written under a name of this process's own, then renamed: two
 * communicators of one size (the halves of a split) that measure at once
 * each leave a whole file, never a torn one. */
int cx_topo_save(const char *path, int p, const double *d)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.%ld.%p.tmp", path, (long)getpid(), (const void *)d) >=
        (int)sizeof tmp)
        return MPI_ERR_FILE;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return MPI_ERR_FILE;
    fprintf(f, "# collx distances (seconds): node leaders' ping-pong; ranks of a node "
               "are close\np %d\n", p);
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            fprintf(f, "%.17g%c", d[(size_t)i * p + j], j + 1 < p ? ' ' : '\n');
    if (fclose(f) || rename(tmp, path)) {
        remove(tmp);
        return MPI_ERR_FILE;
    }
    return MPI_SUCCESS;
}
