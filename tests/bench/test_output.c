/* The CSV and JSON writers: column first_us (the first call on a new
 * communicator) is the last column, empty where not measured, and the
 * columns before it keep their places (readers by name are unaffected). */
#include <stdio.h>
#include <string.h>
#include "cb_output.h"

static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

/* The text a writer left in f, from the start. */
static void slurp(FILE *f, char *buf, size_t len)
{
    rewind(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
}

static cb_row row(double first_us)
{
    cb_row r;
    memset(&r, 0, sizeof r);
    strcpy(r.kind, "time");
    strcpy(r.coll, "bcast");
    strcpy(r.alg, "binomial_topo");
    strcpy(r.ran, "binomial_topo");
    strcpy(r.metric, "r");
    r.size_bytes = 65536;
    r.b = -1;
    r.valid = -1;
    r.host_s = -1;
    r.s.median = 25.5;
    r.first_us = first_us;
    return r;
}

static const char *last_field(const char *line)
{
    const char *c = strrchr(line, ',');
    return c ? c + 1 : line;
}

int main(void)
{
    cb_meta m;
    memset(&m, 0, sizeof m);
    strcpy(m.platform, "real");
    m.p = 4;
    m.nodes = 2;
    char buf[4096];
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f)
        return 1;
    cb_csv_header(f);
    cb_row a = row(1281.1), b = row(-1);
    cb_csv_row(f, &m, &a);
    cb_csv_row(f, &m, &b);
    slurp(f, buf, sizeof buf);
    char *head = strtok(buf, "\n"), *first = strtok(NULL, "\n"), *second = strtok(NULL, "\n");
    CHECK(head && strstr(head, ",host_s,nodes,shape,first_us") &&
          !strcmp(last_field(head), "first_us"));
    CHECK(first && !strcmp(last_field(first), "1281.100"));
    CHECK(second && !strcmp(last_field(second), ""));   /* not measured: empty */
    fclose(f);

    cb_table t = {0};
    cb_table_add(&t, &a);
    cb_table_add(&t, &b);
    const char *path = "test_output.json";
    CHECK(cb_write_json(path, &m, &t, "collbench --coll bcast") == 0);
    FILE *j = fopen(path, "r");
    CHECK(j != NULL);
    if (j) {
        slurp(j, buf, sizeof buf);
        fclose(j);
        CHECK(strstr(buf, "\"first_us\": 1281.100") && strstr(buf, "\"first_us\": null"));
    }
    remove(path);
    return fails ? 1 : 0;
}
