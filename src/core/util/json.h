/* A small JSON reader for collx's configuration (the rules file): the whole
 * document into a tree; errors name the line. And the one writer collx's
 * JSON outputs share (strings). No dependencies. */
#ifndef CX_JSON_H
#define CX_JSON_H

#include <stddef.h>
#include <stdio.h>

typedef enum { CX_JSON_NULL, CX_JSON_BOOL, CX_JSON_NUMBER, CX_JSON_STRING,
               CX_JSON_ARRAY, CX_JSON_OBJECT } cx_json_kind;

typedef struct cx_json {
    cx_json_kind kind;
    double number;            /* NUMBER; BOOL: 0 or 1 */
    char *string;             /* STRING */
    char *key;                /* name of this member inside an object */
    struct cx_json *child;    /* first element / member (ARRAY, OBJECT) */
    struct cx_json *next;     /* next sibling */
    int line;                 /* where the value starts (1-based) */
} cx_json;

/* Parses text; NULL on error with "line L: what" in err. */
cx_json *cx_json_parse(const char *text, char *err, size_t errlen);
void cx_json_free(cx_json *v);
/* Member `key` of an object, or NULL. */
const cx_json *cx_json_member(const cx_json *obj, const char *key);
const char *cx_json_kind_name(cx_json_kind k);
/* The whole file as a string (malloc'ed), NULL with why in err. */
char *cx_json_read_file(const char *path, char *err, size_t len);
/* s as a JSON string, quoted and escaped. */
void cx_json_write_string(FILE *f, const char *s);

#endif
