/* Recursive-descent JSON reader (RFC 8259 subset: \uXXXX escapes outside
 * ASCII become '?', which configuration files never need). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"

#define MAX_DEPTH 64

typedef struct {
    const char *p;
    int line;
    char *err;
    size_t errlen;
    int failed;
} reader;

static void fail(reader *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = 1;
    int n = snprintf(r->err, r->errlen, "line %d: ", r->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->errlen)
        vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    va_end(ap);
}

static void skip_space(reader *r)
{
    for (;; r->p++) {
        if (*r->p == '\n')
            r->line++;
        else if (*r->p != ' ' && *r->p != '\t' && *r->p != '\r')
            return;
    }
}

static cx_json *node(reader *r, cx_json_kind k)
{
    cx_json *v = calloc(1, sizeof *v);
    if (!v)
        fail(r, "out of memory");
    else {
        v->kind = k;
        v->line = r->line;
    }
    return v;
}

static char *parse_string_raw(reader *r)
{
    size_t cap = 16, n = 0;
    char *s = malloc(cap);
    r->p++;   /* opening quote */
    while (s && *r->p != '"') {
        char c = *r->p++;
        if (c == '\0' || c == '\n') {
            fail(r, "unterminated string");
            break;
        }
        if (c == '\\') {
            char e = *r->p;
            if (e)
                r->p++;
            switch (e) {
            case '"': case '\\': case '/': c = e; break;
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned u = 0;
                for (int i = 0; i < 4 && !r->failed; i++) {
                    char h = *r->p;   /* never step past the terminating NUL */
                    if (!isxdigit((unsigned char)h))
                        fail(r, "bad \\u escape: want 4 hex digits");
                    else {
                        r->p++;
                        u = u * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
                    }
                }
                c = u < 128 ? (char)u : '?';
                break;
            }
            default:
                fail(r, "bad escape '\\%c'", e);
            }
            if (r->failed)
                break;
        }
        if (n + 1 >= cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) {
                free(s);
                s = NULL;
                break;
            }
            s = t;
        }
        s[n++] = c;
    }
    if (!s) {
        fail(r, "out of memory");
        return NULL;
    }
    if (r->failed) {
        free(s);
        return NULL;
    }
    r->p++;   /* closing quote */
    s[n] = '\0';
    return s;
}

static cx_json *parse_value(reader *r, int depth);

/* Elements of an array or members of an object, up to `close`. */
static cx_json *parse_list(reader *r, int depth, cx_json_kind kind, char close)
{
    cx_json *v = node(r, kind), **tail = v ? &v->child : NULL;
    r->p++;
    skip_space(r);
    if (v && *r->p == close) {
        r->p++;
        return v;
    }
    while (v && !r->failed) {
        char *key = NULL;
        if (kind == CX_JSON_OBJECT) {
            skip_space(r);
            if (*r->p != '"') {
                fail(r, "expected a member name in quotes");
                break;
            }
            if (!(key = parse_string_raw(r)))
                break;
            skip_space(r);
            if (*r->p != ':') {
                fail(r, "expected ':' after \"%s\"", key);
                free(key);
                break;
            }
            r->p++;
        }
        cx_json *e = parse_value(r, depth + 1);
        if (!e) {
            free(key);
            break;
        }
        e->key = key;
        *tail = e;
        tail = &e->next;
        skip_space(r);
        if (*r->p == ',') {
            r->p++;
            continue;
        }
        if (*r->p == close) {
            r->p++;
            return v;
        }
        fail(r, "expected ',' or '%c'", close);
    }
    cx_json_free(v);
    return NULL;
}

static cx_json *parse_value(reader *r, int depth)
{
    skip_space(r);
    if (depth > MAX_DEPTH) {
        fail(r, "nested too deeply");
        return NULL;
    }
    const char *p = r->p;
    cx_json *v = NULL;
    if (*p == '{')
        return parse_list(r, depth, CX_JSON_OBJECT, '}');
    if (*p == '[')
        return parse_list(r, depth, CX_JSON_ARRAY, ']');
    if (*p == '"') {
        char *s = parse_string_raw(r);
        if (s && (v = node(r, CX_JSON_STRING)))
            v->string = s;
        else
            free(s);
        return v;
    }
    static const struct { const char *word; cx_json_kind k; double n; } words[] = {
        {"true", CX_JSON_BOOL, 1}, {"false", CX_JSON_BOOL, 0}, {"null", CX_JSON_NULL, 0}};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strncmp(p, words[i].word, strlen(words[i].word))) {
            r->p += strlen(words[i].word);
            if ((v = node(r, words[i].k)))
                v->number = words[i].n;
            return v;
        }
    if (*p == '-' || (*p >= '0' && *p <= '9')) {
        char *end;
        double d = strtod(p, &end);
        r->p = end;
        if ((v = node(r, CX_JSON_NUMBER)))
            v->number = d;
        return v;
    }
    if (*p == '\0')
        fail(r, "unexpected end of file");
    else
        fail(r, "unexpected '%c'", *p);
    return NULL;
}

cx_json *cx_json_parse(const char *text, char *err, size_t errlen)
{
    reader r = {text, 1, err, errlen, 0};
    cx_json *v = parse_value(&r, 0);
    if (v) {
        skip_space(&r);
        if (*r.p) {
            fail(&r, "text after the end of the document");
            cx_json_free(v);
            v = NULL;
        }
    }
    return v;
}

void cx_json_free(cx_json *v)
{
    while (v) {
        cx_json *next = v->next;
        cx_json_free(v->child);
        free(v->string);
        free(v->key);
        free(v);
        v = next;
    }
}

const cx_json *cx_json_member(const cx_json *obj, const char *key)
{
    if (!obj || obj->kind != CX_JSON_OBJECT)
        return NULL;
    for (const cx_json *m = obj->child; m; m = m->next)
        if (!strcmp(m->key, key))
            return m;
    return NULL;
}

const char *cx_json_kind_name(cx_json_kind k)
{
    static const char *const names[] = {"null", "true/false", "a number", "a string",
                                        "an array", "an object"};
    return names[k];
}

/* ------------------------------------------------------------ files */
char *cx_json_read_file(const char *path, char *err, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, len, "cannot open the file");
        return NULL;
    }
    size_t cap = 4096, n = 0, k;
    char *s = malloc(cap);
    while (s && (k = fread(s + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap) {
            char *t = realloc(s, cap *= 2);
            if (!t)
                free(s);
            s = t;
        }
    }
    int failed = ferror(f);   /* a directory, an I/O error: not an empty file */
    fclose(f);
    if (s && failed) {
        free(s);
        snprintf(err, len, "cannot read the file");
        return NULL;
    }
    if (!s)
        snprintf(err, len, "out of memory");
    else
        s[n] = '\0';
    return s;
}

void cx_json_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}
