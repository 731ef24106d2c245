/* The JSON reader behind COLLX_RULES (src/core/util/json.c), without MPI:
 * values (numbers, strings and their escapes, nested and empty containers,
 * duplicate keys), line numbers, the writer, reading files, and documents
 * that cannot be read: NULL and "line L: why" in the message. Includes the
 * checks of tests/contract/json_reader.c (which runs under mpirun). */
#include <math.h>
#include "unit.h"
#include "util/json.h"

/* Parses text, expecting a document (the message if not). */
static cx_json *good(const char *text)
{
    char err[256] = "";
    cx_json *v = cx_json_parse(text, err, sizeof err);
    EXPECT(v != NULL, "\"%s\" does not parse: %s", text, err);
    return v;
}

/* text must fail with exactly "line L: " + a message starting with want. */
static void bad_at(const char *text, int line, const char *want)
{
    char err[256] = "", prefix[300];
    cx_json *v = cx_json_parse(text, err, sizeof err);
    EXPECT(v == NULL, "\"%s\" parsed, expected the error \"%s\"", text, want);
    cx_json_free(v);
    snprintf(prefix, sizeof prefix, "line %d: %s", line, want);
    EXPECT(!strncmp(err, prefix, strlen(prefix)), "\"%s\": expected \"%s...\", got \"%s\"",
           text, prefix, err);
}
#define bad(...) UNIT_AT(bad_at(__VA_ARGS__))

static void numbers(void)
{
    static const struct { const char *text; double want; } cases[] = {
        {"0", 0}, {"42", 42}, {"-7", -7}, {"1e3", 1000}, {"-2.5e1", -25}, {"2.5E-1", 0.25},
        {"1e+2", 100}, {"0.5", 0.5}, {"-0", 0}, {"4611686018427387904", 0x1p62},
        {"1048576", 1048576}, {" 17 ", 17}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cx_json *v = good(cases[i].text);
        EXPECT(v && v->kind == CX_JSON_NUMBER && v->number == cases[i].want,
               "\"%s\": expected the number %g, got %g", cases[i].text, cases[i].want,
               v ? v->number : NAN);
        cx_json_free(v);
    }
    cx_json *v = good("[1,-2,3.5e2]");
    const cx_json *e = v ? v->child : NULL;
    EXPECT(e && e->number == 1 && e->next && e->next->number == -2 && e->next->next &&
           e->next->next->number == 350 && !e->next->next->next, "[1,-2,3.5e2]: 1, -2, 350");
    cx_json_free(v);
}

static void literals(void)
{
    cx_json *v = good("[true, false, null]");
    const cx_json *t = v ? v->child : NULL, *f = t ? t->next : NULL, *n = f ? f->next : NULL;
    EXPECT(t && t->kind == CX_JSON_BOOL && t->number == 1, "true: BOOL 1");
    EXPECT(f && f->kind == CX_JSON_BOOL && f->number == 0, "false: BOOL 0");
    EXPECT(n && n->kind == CX_JSON_NULL, "null: NULL");
    cx_json_free(v);
    bad("tru", 1, "unexpected 't'");
    bad("[nul]", 1, "unexpected 'n'");
}

static void strings(void)
{
    static const struct { const char *text, *want; } cases[] = {
        {"\"plain\"", "plain"},
        {"\"\"", ""},
        {"\"q\\\"b\\\\s\\/\"", "q\"b\\s/"},
        {"\"\\n\\t\\r\\b\\f\"", "\n\t\r\b\f"},
        {"\"\\u0041\\u004a\\u004A\"", "AJJ"},
        {"\"caf\\u00e9 \\u20AC\"", "caf? ?"},   /* beyond ASCII: '?' (json.c) */
        {"\"a long string, longer than the reader's first 16 bytes\"",
         "a long string, longer than the reader's first 16 bytes"},
        {"\"tab\there\"", "tab\there"},   /* a raw tab is kept */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cx_json *v = good(cases[i].text);
        EXPECT(v && v->kind == CX_JSON_STRING && !strcmp(v->string, cases[i].want),
               "%s: expected \"%s\", got \"%s\"", cases[i].text, cases[i].want,
               v && v->string ? v->string : "(none)");
        cx_json_free(v);
    }
}

static void nested(void)
{
    cx_json *v = good("{\"rules\": [{\"collective\": \"bcast\", \"range\": {\"min\": 1, "
                      "\"max\": [2, [3, {\"deep\": true}]]}}, {}], \"n\": 2}");
    const cx_json *rules = cx_json_member(v, "rules");
    EXPECT(v && v->kind == CX_JSON_OBJECT, "the document is an object");
    EXPECT(rules && rules->kind == CX_JSON_ARRAY && !strcmp(rules->key, "rules"),
           "\"rules\": an array, with its key");
    const cx_json *r0 = rules ? rules->child : NULL;
    EXPECT(r0 && r0->kind == CX_JSON_OBJECT && !r0->key, "rules[0]: an object, no key");
    const cx_json *range = cx_json_member(r0, "range");
    EXPECT(cx_json_member(range, "min") && cx_json_member(range, "min")->number == 1,
           "range.min = 1");
    const cx_json *max = cx_json_member(range, "max");
    const cx_json *inner = max && max->child ? max->child->next : NULL;
    const cx_json *deep = inner && inner->child ? cx_json_member(inner->child->next, "deep")
                                                : NULL;
    EXPECT(deep && deep->kind == CX_JSON_BOOL && deep->number == 1, "max[1][1].deep = true");
    EXPECT(r0 && r0->next && r0->next->kind == CX_JSON_OBJECT && !r0->next->child &&
           !r0->next->next, "rules[1] = {}, the last");
    EXPECT(cx_json_member(v, "n") && cx_json_member(v, "n")->number == 2, "n = 2");
    EXPECT(!cx_json_member(v, "missing"), "no member \"missing\"");
    EXPECT(!cx_json_member(rules, "rules"), "an array has no members");
    EXPECT(!cx_json_member(NULL, "rules"), "NULL has no members");
    cx_json_free(v);
}

static void empty(void)
{
    cx_json *v = good("{}");
    EXPECT(v && v->kind == CX_JSON_OBJECT && !v->child, "{}: an object without members");
    cx_json_free(v);
    v = good(" [ \n ] ");
    EXPECT(v && v->kind == CX_JSON_ARRAY && !v->child, "[ ]: an array without elements");
    cx_json_free(v);
    v = good("{\"a\": {}, \"b\": [], \"c\": \"\"}");
    const cx_json *a = cx_json_member(v, "a"), *b = cx_json_member(v, "b"),
                  *c = cx_json_member(v, "c");
    EXPECT(a && a->kind == CX_JSON_OBJECT && !a->child, "a = {}");
    EXPECT(b && b->kind == CX_JSON_ARRAY && !b->child, "b = []");
    EXPECT(c && c->kind == CX_JSON_STRING && !strcmp(c->string, ""), "c = \"\"");
    cx_json_free(v);
}

/* The reader keeps both members; cx_json_member finds the first (what the
 * rules file then uses). */
static void duplicate_keys(void)
{
    cx_json *v = good("{\"algorithm\": \"linear\", \"algorithm\": \"binomial\"}");
    const cx_json *m = cx_json_member(v, "algorithm");
    EXPECT(m && m->string && !strcmp(m->string, "linear"), "the first \"algorithm\" is found");
    EXPECT(v && v->child && v->child->next && v->child->next->string &&
           !strcmp(v->child->next->string, "binomial") && !v->child->next->next,
           "both members are kept, in order");
    cx_json_free(v);
}

static void lines(void)
{
    cx_json *v = good("{\"a\": 1,\r\n \"b\":\n\n  [true,\n   \"s\"],\n \"c\": {\"d\": null}}");
    const cx_json *a = cx_json_member(v, "a"), *b = cx_json_member(v, "b");
    const cx_json *c = cx_json_member(v, "c"), *d = cx_json_member(c, "d");
    EXPECT(v && v->line == 1, "the document starts on line 1");
    EXPECT(a && a->line == 1, "a on line 1 (got %d)", a ? a->line : -1);
    EXPECT(b && b->line == 4, "b's value on line 4 (got %d)", b ? b->line : -1);
    EXPECT(b && b->child && b->child->next && b->child->next->line == 5,
           "b[1] on line 5 (got %d)", b && b->child && b->child->next ? b->child->next->line : -1);
    EXPECT(c && c->line == 6 && d && d->line == 6, "c and c.d on line 6");
    cx_json_free(v);
}

/* Depth: 65 nested arrays read, 66 are refused (MAX_DEPTH 64, json.c). */
static void depth(void)
{
    char text[300];
    for (int n = 65; n <= 66; n++) {
        memset(text, '[', (size_t)n);
        memset(text + n, ']', (size_t)n);
        text[2 * n] = '\0';
        char err[200] = "";
        cx_json *v = cx_json_parse(text, err, sizeof err);
        if (n == 65)
            EXPECT(v != NULL, "65 nested arrays: %s", err);
        else
            EXPECT(v == NULL && !strcmp(err, "line 1: nested too deeply"),
                   "66 nested arrays: expected \"line 1: nested too deeply\", got \"%s\"", err);
        cx_json_free(v);
    }
}

static void errors(void)
{
    /* tests/contract/json_reader.c's */
    bad("{\"a\": \"\\u", 1, "bad \\u escape: want 4 hex digits");
    bad("{\"a\": \"\\u00", 1, "bad \\u escape: want 4 hex digits");
    bad("{\"a\": \"\\u12G4\"}", 1, "bad \\u escape: want 4 hex digits");
    bad("{\"a\": \"\\", 1, "bad escape '\\");
    bad("{\"a\": \"abc", 1, "unterminated string");
    bad("{\"a\" 1}", 1, "expected ':' after \"a\"");
    bad("{\"a\": 1,\n\n \"b\": }", 3, "unexpected '}'");
    bad("[1, 2", 1, "expected ',' or ']'");
    bad("{} x", 1, "text after the end of the document");
    bad("", 1, "unexpected end of file");
    /* and more */
    bad("{\"a\": \"\\x\"}", 1, "bad escape '\\x'");
    bad("[\"ab\ncd\"]", 1, "unterminated string");
    bad("[\n\n\"x", 3, "unterminated string");
    bad("{\"a\": 1", 1, "expected ',' or '}'");
    bad("{\"a\": 1\n  \"b\": 2}", 2, "expected ',' or '}'");
    bad("{1: 2}", 1, "expected a member name in quotes");
    bad("{'a': 1}", 1, "expected a member name in quotes");
    bad("{\"a\": 1,}", 1, "expected a member name in quotes");
    bad("[1,]", 1, "unexpected ']'");
    bad("[1 2]", 1, "expected ',' or ']'");
    bad("@", 1, "unexpected '@'");
    bad(" \n\n ", 3, "unexpected end of file");
    bad("{\"a\": [1, 2,\n", 2, "unexpected end of file");
    bad("{\"rules\": []}\n{}", 2, "text after the end of the document");
    /* a short message buffer is cut, never overrun (ASan builds check) */
    char tiny[8];
    cx_json *v = cx_json_parse("[1 2]", tiny, sizeof tiny);
    EXPECT(v == NULL && !strcmp(tiny, "line 1:"), "an 8-byte buffer holds \"line 1:\", got \"%s\"",
           tiny);
    cx_json_free(v);
}

/* The document of tests/contract/json_reader.c, checked the same way. */
static void contract_document(void)
{
    cx_json *v = good("{\"a\": [1, -2.5e1, true, false, null],\n"
                      " \"s\": \"x\\ty\\u0041\\u00e9\\\"\", \"o\": {}}");
    const cx_json *a = cx_json_member(v, "a"), *s = cx_json_member(v, "s");
    EXPECT(v && v->kind == CX_JSON_OBJECT, "document parses");
    EXPECT(a && a->kind == CX_JSON_ARRAY && a->child && a->child->number == 1.0, "array");
    EXPECT(a && a->child && a->child->next->number == -25.0, "exponent");
    EXPECT(a && a->child && a->child->next->next->kind == CX_JSON_BOOL, "true");
    EXPECT(s && s->kind == CX_JSON_STRING && !strcmp(s->string, "x\tyA?\""), "escapes");
    EXPECT(cx_json_member(v, "o") && !cx_json_member(v, "missing"), "members");
    EXPECT(s && s->line == 2, "line numbers");
    cx_json_free(v);
}

static void read_file(void)
{
    char path[512], err[200] = "";
    const char *doc = "{\"rules\": [\n"
                      "  {\"collective\": \"bcast\", \"algorithm\": \"linear\"}\n]}\n";
    char *text = cx_json_read_file(unit_file("doc.json", doc, path, sizeof path), err, sizeof err);
    EXPECT(text && !strcmp(text, doc), "a file is read whole (%s)", err);
    free(text);

    /* larger than the first 4096-byte buffer: grown, nothing lost */
    size_t n = 10000;
    char *big = malloc(n + 1);
    for (size_t i = 0; big && i < n; i++)
        big[i] = (char)('a' + i % 26);
    if (big) {
        big[n] = '\0';
        text = cx_json_read_file(unit_file("big.txt", big, path, sizeof path), err, sizeof err);
        EXPECT(text && strlen(text) == n && !memcmp(text, big, n),
               "a 10000-byte file is read whole");
        free(text);
        /* exactly the buffer's first size minus the NUL, and one more */
        for (size_t m = 4095; m <= 4097; m++) {
            big[m] = '\0';
            text = cx_json_read_file(unit_file("edge.txt", big, path, sizeof path), err,
                                     sizeof err);
            EXPECT(text && strlen(text) == m, "a %zu-byte file is read whole", m);
            free(text);
            big[m] = (char)('a' + m % 26);
        }
        free(big);
    }

    text = cx_json_read_file(unit_file("empty.json", "", path, sizeof path), err, sizeof err);
    EXPECT(text && !*text, "an empty file is \"\"");
    cx_json *v = text ? cx_json_parse(text, err, sizeof err) : NULL;
    EXPECT(!v && !strcmp(err, "line 1: unexpected end of file"),
           "an empty file does not parse: \"%s\"", err);
    cx_json_free(v);
    free(text);

    snprintf(path, sizeof path, "%s/does_not_exist.json", unit_dir);
    err[0] = '\0';
    text = cx_json_read_file(path, err, sizeof err);
    EXPECT(!text && !strcmp(err, "cannot open the file"),
           "a missing file: NULL, \"cannot open the file\", got \"%s\"", err);
    free(text);

    /* a directory cannot be used, one way or the other */
    err[0] = '\0';
    text = cx_json_read_file(unit_dir, err, sizeof err);
    v = text ? cx_json_parse(text, err, sizeof err) : NULL;
    EXPECT(!v, "a directory gives no document");
    cx_json_free(v);
    free(text);
}

static void write_string(void)
{
    const char *s = "a\"b\\c\n\x01/\xc3\xa9";
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) {
        EXPECT(0, "open_memstream failed");
        return;
    }
    cx_json_write_string(f, s);
    fclose(f);
    EXPECT_STR(out, "\"a\\\"b\\\\c\\u000a\\u0001/\xc3\xa9\"");
    /* and back: the ASCII characters come back as they were */
    cx_json *v = good(out);
    EXPECT(v && v->kind == CX_JSON_STRING && !strncmp(v->string, s, 7),
           "written and read back: the same text");
    cx_json_free(v);
    free(out);
}

static void kind_names(void)
{
    EXPECT_STR(cx_json_kind_name(CX_JSON_NULL), "null");
    EXPECT_STR(cx_json_kind_name(CX_JSON_BOOL), "true/false");
    EXPECT_STR(cx_json_kind_name(CX_JSON_NUMBER), "a number");
    EXPECT_STR(cx_json_kind_name(CX_JSON_STRING), "a string");
    EXPECT_STR(cx_json_kind_name(CX_JSON_ARRAY), "an array");
    EXPECT_STR(cx_json_kind_name(CX_JSON_OBJECT), "an object");
}

int main(void)
{
    unit_begin("unit_json");
    unit_run("json.numbers", numbers, 0);
    unit_run("json.literals", literals, 0);
    unit_run("json.strings", strings, 0);
    unit_run("json.nested", nested, 0);
    unit_run("json.empty", empty, 0);
    unit_run("json.duplicate_keys", duplicate_keys, 0);
    unit_run("json.lines", lines, 0);
    unit_run("json.depth", depth, 0);
    unit_run("json.errors", errors, 0);
    unit_run("json.contract_document", contract_document, 0);
    unit_run("json.read_file", read_file, 0);
    unit_run("json.write_string", write_string, 0);
    unit_run("json.kind_names", kind_names, 0);
    return unit_end();
}
