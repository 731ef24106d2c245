/* collx_info: lists every collective and its registered algorithms (the
 * same registry CX_Algorithm_set and COLLX_<COLL>_ALGORITHM choose from),
 * with what each needs and what runs instead when it cannot serve a call.
 *
 *   collx_info                  the algorithms
 *   collx_info --version        collx's version and the MPI it was built for
 *   collx_info --list           the catalogue: coll.alg per line (no MPI_Init;
 *                               under a launcher, rank 0 prints: launcher_rank.h)
 *   collx_info --where          where each algorithm is: "coll alg family
 *                               builder" per line (no MPI_Init; tools/
 *                               gen_reference.sh adds the builder's file)
 *   collx_info --man            the collx(7) manual page (roff)
 *   collx_info --vars [--json]  every COLLX_* variable (every knobs.def of src/):
 *                               its value now, default, what it takes, whether a
 *                               rule's "params" may set it, what it means
 *   collx_info --mpi-cvars TEXT the MPI's own control variables whose names hold
 *                               TEXT, read through MPI_T (no MPI_Init), as JSON:
 *                               name, value now, enumeration, description (the
 *                               tuner reads the MPI's collective algorithms here)
 *   collx_info --builtin-rules  the families' built-in rules (compiled in from
 *                               src/<family>/<name>.rules.json): each text
 *                               after a "// name (path)" line */
#include <stdio.h>
#include <string.h>
#include "collx.h"
#include "collx_tools.h"
#include "info_man.h"
#include "launcher_rank.h"

static void algorithms(void)
{
    for (int c = 0; c < CX_Collective_count(); c++) {
        const char *coll = CX_Collective_name(c);
        printf("%s (selected now: %s)\n", coll, CX_Algorithm_get(coll));
        for (int i = 0; i < CX_Algorithm_count(coll); i++) {
            char needs[256];
            printf("  %-20s %s\n", CX_Algorithm_name(coll, i),
                   CX_Algorithm_summary(coll, i));
            if (CX_Algorithm_needs(coll, i, needs, sizeof needs) > 0)
                printf("  %-20s needs: %s\n", "", needs);
        }
    }
}

/* --list: "coll.alg" per line, the catalogue as tests and scripts read it
 * (the registry's data: no MPI_Init). */
static void list_pairs(void)
{
    for (int c = 0; c < CX_Collective_count(); c++)
        for (int i = 0; i < CX_Algorithm_count(CX_Collective_name(c)); i++)
            printf("%s.%s\n", CX_Collective_name(c),
                   CX_Algorithm_name(CX_Collective_name(c), i));
}

/* --where: each algorithm's family and the function that builds its
 * schedule (native: the MPI's own call), in the catalogue's order. */
static void where(void)
{
    for (int c = 0; c < CX_Collective_count(); c++) {
        const char *coll = CX_Collective_name(c), *family, *builder;
        for (int i = 0; !CX_Algorithm_where(coll, i, &family, &builder); i++)
            printf("%s %s %s %s\n", coll, CX_Algorithm_name(coll, i), family, builder);
    }
}

static void vars_text(void)
{
    printf("# COLLX_* variables: value now (source), default, what it takes, per call = "
           "a rule's \"params\" may set it (COLLX_RULES)\n");
    CX_Setting_info d;
    for (int k = 0; !CX_Setting_describe(k, &d); k++) {
        printf("%s [%s%s]\n", d.name, d.family, d.per_call ? ", per call" : "");
        printf("    value:   %s (%s)\n", *d.value ? d.value : "-", d.source);
        if (d.environment && strcmp(d.environment, d.value))
            printf("    set to:  %s\n", d.environment);
        printf("    default: %s\n", d.def ? d.def : d.unset);
        printf("    takes:   %s (%s)\n", d.range, d.type);
        printf("    meaning: %s\n", d.meaning);
        if (d.tune)
            printf("    tuned:   ./run tune also tries %s with %s\n", d.tune, d.tune_algs);
    }
}

static void json_string(const char *s)
{
    if (!s) {
        fputs("null", stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

static void vars_json(void)
{
    printf("{\"vars\": [");
    CX_Setting_info d;
    for (int k = 0; !CX_Setting_describe(k, &d); k++) {
        printf("%s\n  {\"name\": ", k ? "," : "");
        json_string(d.name);
        printf(", \"family\": ");
        json_string(d.family);
        printf(", \"type\": ");
        json_string(d.type);
        printf(", \"value\": ");
        json_string(d.set ? d.value : NULL);
        printf(", \"source\": ");
        json_string(d.source);
        printf(", \"environment\": ");
        json_string(d.environment);
        printf(", \"default\": ");
        json_string(d.def);
        printf(", \"unset\": ");
        json_string(d.def ? NULL : d.unset);
        printf(", \"range\": ");
        json_string(d.range);
        if (d.has_int_range)
            printf(", \"min\": %lld, \"max\": %lld", d.min, d.max);
        if (d.has_real_range)
            printf(", \"min\": %.17g, \"max\": %.17g", d.rmin, d.rmax);
        if (d.values) {
            printf(", \"values\": [");
            for (int i = 0; d.values[i]; i++) {
                printf("%s", i ? ", " : "");
                json_string(d.values[i]);
            }
            printf("]");
        }
        printf(", \"per_call\": %s, \"tune\": ", d.per_call ? "true" : "false");
        json_string(d.tune);
        printf(", \"tune_algs\": ");
        json_string(d.tune_algs);
        printf(", \"meaning\": ");
        json_string(d.meaning);
        printf("}");
    }
    printf("\n]}\n");
}

/* The MPI's control variables whose names contain `part`, through the MPI
 * tool interface (MPI_T_init_thread: no MPI_Init, no launcher needed): the
 * MPI says which algorithms it has for each collective and what their ids
 * are (Open MPI: coll_tuned_<coll>_algorithm, an enumeration; MPICH:
 * MPIR_CVAR_<COLL>_INTRA_ALGORITHM, an int whose description lists the
 * names), so the tuner keeps no table of them. "value": the variable's
 * value now (an int one that needs no object), so that a caller can see
 * how the MPI parsed a setting of it in the environment. */
static int mpi_cvars(const char *part)
{
#ifdef MPI_T_ENUM_NULL
    int provided, n = 0, first = 1;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "collx_info: MPI_T_init_thread failed\n");
        return 1;
    }
    MPI_T_cvar_get_num(&n);
    printf("{\"cvars\": [");
    for (int i = 0; i < n; i++) {
        char name[256], desc[8192];
        int nlen = sizeof name, dlen = sizeof desc, verbosity, bind, scope;
        MPI_Datatype type;
        MPI_T_enum en;
        if (MPI_T_cvar_get_info(i, name, &nlen, &verbosity, &type, &en, desc, &dlen, &bind,
                                &scope) != MPI_SUCCESS || !strstr(name, part))
            continue;
        printf("%s\n  {\"name\": ", first ? "" : ",");
        first = 0;
        json_string(name);
        printf(", \"value\": ");
        MPI_T_cvar_handle h;
        int count, value;
        if (type == MPI_INT && bind == MPI_T_BIND_NO_OBJECT &&
            MPI_T_cvar_handle_alloc(i, NULL, &h, &count) == MPI_SUCCESS) {
            if (count == 1 && MPI_T_cvar_read(h, &value) == MPI_SUCCESS)
                printf("%d", value);
            else
                printf("null");
            MPI_T_cvar_handle_free(&h);
        } else {
            printf("null");
        }
        printf(", \"enum\": [");
        int items = 0;
        char ename[256];
        int elen = sizeof ename;
        if (en != MPI_T_ENUM_NULL && MPI_T_enum_get_info(en, &items, ename, &elen) == MPI_SUCCESS)
            for (int j = 0; j < items; j++) {
                char item[256];
                int ilen = sizeof item, v;
                if (MPI_T_enum_get_item(en, j, &v, item, &ilen) != MPI_SUCCESS)
                    continue;
                printf("%s[%d, ", j ? ", " : "", v);
                json_string(item);
                printf("]");
            }
        printf("], \"description\": ");
        json_string(desc);
        printf("}");
    }
    printf("\n]}\n");
    MPI_T_finalize();
    return 0;
#else
    (void)part;
    fprintf(stderr, "collx_info: this MPI has no tool interface (MPI_T)\n");
    return 1;
#endif
}

static const char usage[] =
    "usage: collx_info [--version | --list | --where | --vars [--json] | --mpi-cvars TEXT |\n"
    "                   --man | --builtin-rules | --help]\n"
    "  (no option)     every collective, its algorithms, what each needs\n"
    "  --list          the catalogue: coll.alg per line (native first)\n"
    "  --where         per algorithm its family and the function that builds it:\n"
    "                  coll alg family builder (docs/reference/algorithms.md adds files)\n"
    "  --version       collx's version and the MPI it was built for\n"
    "  --vars          every COLLX_* variable: value now, default, meaning\n"
    "  --vars --json   the same as JSON\n"
    "  --mpi-cvars TEXT  the MPI's own control variables whose names hold TEXT\n"
    "                  (MPI_T, JSON: value now, enumeration, description)\n"
    "  --man           the collx(7) manual page (roff): collx_info --man | man -l -\n"
    "  --builtin-rules the families' built-in rules (hier's leaders'), rules format\n"
    "Runs as one process (no launcher needed) or under mpirun; rank 0 prints.\n";

int main(int argc, char **argv)
{
    int vars = 0, json = 0, rank;
    int quiet = cb_launcher_rank() != 0;   /* before MPI_Init: rank 0 of a launch prints */
    for (int i = 1; i < argc; i++) {
        if (quiet && (!strcmp(argv[i], "--version") || !strcmp(argv[i], "--list") ||
                      !strcmp(argv[i], "--where") ||
                      !strcmp(argv[i], "--man") || !strcmp(argv[i], "--help") ||
                      !strcmp(argv[i], "--builtin-rules") ||
                      !strcmp(argv[i], "-h") || !strcmp(argv[i], "--mpi-cvars")))
            return 0;
        if (!strcmp(argv[i], "--mpi-cvars")) {   /* MPI_T alone: no MPI_Init */
            if (i + 1 >= argc) {
                fprintf(stderr, "collx_info: --mpi-cvars needs TEXT (a part of the names)\n%s",
                        usage);
                return 2;
            }
            return mpi_cvars(argv[i + 1]);
        }
        if (!strcmp(argv[i], "--version")) {   /* no MPI_Init: works anywhere */
            char v[CX_MAX_LIBRARY_VERSION_STRING];
            CX_Get_library_version(v, sizeof v, NULL);
            printf("%s\n", v);
            return 0;
        }
        if (!strcmp(argv[i], "--where")) {   /* the registry's data: no MPI_Init */
            where();
            return 0;
        }
        if (!strcmp(argv[i], "--list")) {   /* the registry's data: no MPI_Init */
            list_pairs();
            return 0;
        }
        if (!strcmp(argv[i], "--man")) {
            info_man();
            return 0;
        }
        if (!strcmp(argv[i], "--builtin-rules")) {   /* compiled-in text: no MPI_Init */
            const char *path, *text, *name;
            for (int k = 0; (name = CX_Rules_builtin(k, &path, &text)); k++)
                printf("%s// %s (%s)\n%s", k ? "\n" : "", name, path, text);
            return 0;
        }
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        vars |= !strcmp(argv[i], "--vars");
        json |= !strcmp(argv[i], "--json");
        if (strcmp(argv[i], "--vars") && strcmp(argv[i], "--json")) {
            fprintf(stderr, "collx_info: unknown option '%s'\n%s", argv[i], usage);
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && vars && json)
        vars_json();
    else if (rank == 0 && vars)
        vars_text();
    else if (rank == 0)
        algorithms();
    MPI_Finalize();
    return 0;
}
