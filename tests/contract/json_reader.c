/* The JSON reader behind COLLX_RULES: values, escapes, and broken documents
 * that must fail with a line number instead of reading past the end (run
 * under ASan in CI). */
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include "../../src/core/json.h"

static int fails;

static void expect(int ok, const char *what)
{
    if (!ok) {
        printf("json_reader: FAIL %s\n", what);
        fails++;
    }
}

static void bad(const char *text, const char *want)
{
    char err[200] = "";
    cx_json *v = cx_json_parse(text, err, sizeof err);
    expect(v == NULL, text);
    expect(strstr(err, want) != NULL, want);
    if (!strstr(err, want))
        printf("  got: %s\n", err);
    cx_json_free(v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);   /* only to run under the MPI test launcher */
    char err[200] = "";
    cx_json *v = cx_json_parse("{\"a\": [1, -2.5e1, true, false, null],\n"
                               " \"s\": \"x\\ty\\u0041\\u00e9\\\"\", \"o\": {}}", err, sizeof err);
    expect(v && v->kind == CX_JSON_OBJECT, "document parses");
    const cx_json *a = cx_json_member(v, "a"), *s = cx_json_member(v, "s");
    expect(a && a->kind == CX_JSON_ARRAY && a->child && a->child->number == 1.0, "array");
    expect(a && a->child->next->number == -25.0, "exponent");
    expect(a && a->child->next->next->kind == CX_JSON_BOOL, "true");
    expect(s && s->kind == CX_JSON_STRING && !strcmp(s->string, "x\tyA?\""), "escapes");
    expect(cx_json_member(v, "o") && !cx_json_member(v, "missing"), "members");
    expect(s && s->line == 2, "line numbers");
    cx_json_free(v);
    bad("{\"a\": \"\\u", "bad \\u escape");
    bad("{\"a\": \"\\u00", "bad \\u escape");
    bad("{\"a\": \"\\u12G4\"}", "bad \\u escape");
    bad("{\"a\": \"\\", "bad escape");
    bad("{\"a\": \"abc", "unterminated string");
    bad("{\"a\" 1}", "expected ':'");
    bad("{\"a\": 1,\n\n \"b\": }", "line 3: unexpected '}'");
    bad("[1, 2", "expected ',' or");
    bad("{} x", "text after the end");
    bad("", "unexpected end of file");
    printf("json_reader: %s\n", fails ? "FAILED" : "ok");
    MPI_Finalize();
    return fails != 0;
}
