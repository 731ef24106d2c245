/* A small harness for the unit tests (README.md): cases run one after the
 * other, each in this process or in a child of its own (fork: a fresh
 * COLLX_ environment and fresh once-only state, e.g. the rules file that
 * rules.c loads once); one line per case, "ok   NAME" or, per failed
 * expectation, "FAIL NAME: what (file:line)"; exit status 1 when a case
 * failed. No MPI_Init, no launcher: only what runs without MPI.
 *
 *   static void my_case(void) { EXPECT(1 + 1 == 2, "arithmetic"); }
 *   int main(void) { unit_begin("unit_x");
 *                    unit_run("x.arithmetic", my_case, 0); return unit_end(); }
 *
 * stderr can be captured for a case (capture_start, capture_text) to check
 * what collx says; text is matched with EXPECT_HAS / EXPECT_LACKS. */
#ifndef COLLX_UNIT_H
#define COLLX_UNIT_H

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *unit_prog = "unit";
static const char *unit_case = "?";
static int unit_case_failures;   /* in the case running */
static int unit_cases, unit_failed_cases;
static char unit_dir[256];       /* a private temporary directory */
/* The line that called a checking helper (UNIT_AT), 0 when none. */
static int unit_caller_line;
/* A forked case's exit status when expectations failed (and said so). */
#define UNIT_CHILD_FAILED 3

static inline void unit_fail(const char *file, int line, const char *fmt, ...)
{
    char what[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const char *base = strrchr(file, '/');
    if (unit_caller_line)
        printf("FAIL %s: %s (%s:%d, from line %d)\n", unit_case, what, base ? base + 1 : file,
               line, unit_caller_line);
    else
        printf("FAIL %s: %s (%s:%d)\n", unit_case, what, base ? base + 1 : file, line);
    fflush(stdout);
    unit_case_failures++;
}

#define EXPECT(cond, ...)                                                      \
    do {                                                                       \
        if (!(cond))                                                           \
            unit_fail(__FILE__, __LINE__, __VA_ARGS__);                        \
    } while (0)

/* Calls a checking helper so that its failures name the caller's line:
 *   #define bad(...) UNIT_AT(bad_at(__VA_ARGS__)) */
#define UNIT_AT(call) (unit_caller_line = __LINE__, (call), unit_caller_line = 0)

/* Text (a message) contains / does not contain want. */
#define EXPECT_HAS(text, want)                                                 \
    do {                                                                       \
        const char *t_ = (text);                                               \
        if (!t_ || !strstr(t_, (want)))                                        \
            unit_fail(__FILE__, __LINE__, "expected text containing \"%s\", got \"%s\"", \
                      (want), t_ ? t_ : "(null)");                             \
    } while (0)
#define EXPECT_LACKS(text, want)                                               \
    do {                                                                       \
        const char *t_ = (text);                                               \
        if (t_ && strstr(t_, (want)))                                          \
            unit_fail(__FILE__, __LINE__, "expected no \"%s\", got \"%s\"", (want), t_); \
    } while (0)
#define EXPECT_STR(got, want)                                                  \
    do {                                                                       \
        const char *g_ = (got), *w_ = (want);                                  \
        if (!g_ || strcmp(g_, w_))                                             \
            unit_fail(__FILE__, __LINE__, "expected \"%s\", got \"%s\"", w_,   \
                      g_ ? g_ : "(null)");                                     \
    } while (0)
#define EXPECT_INT(got, want)                                                  \
    do {                                                                       \
        long long g_ = (long long)(got), w_ = (long long)(want);               \
        if (g_ != w_)                                                          \
            unit_fail(__FILE__, __LINE__, "%s: expected %lld, got %lld", #got, w_, g_); \
    } while (0)

/* ------------------------------------------------------------ stderr */
static int capture_fd = -1, capture_saved = -1;
static char *capture_buf;

/* From now on stderr goes to a temporary file (until capture_stop). */
static inline void capture_start(void)
{
    char path[300];
    fflush(stderr);
    snprintf(path, sizeof path, "%s/stderr.XXXXXX", unit_dir);
    capture_fd = mkstemp(path);
    if (capture_fd < 0) {
        perror("unit: mkstemp");
        exit(2);
    }
    unlink(path);
    capture_saved = dup(2);
    dup2(capture_fd, 2);
}

/* What was written to stderr since capture_start (valid until the next
 * call or capture_stop). */
static inline const char *capture_text(void)
{
    fflush(stderr);
    off_t end = lseek(capture_fd, 0, SEEK_END);
    free(capture_buf);
    capture_buf = calloc(1, (size_t)(end > 0 ? end : 0) + 1);
    if (!capture_buf)
        return "";
    if (end > 0 && pread(capture_fd, capture_buf, (size_t)end, 0) < 0)
        capture_buf[0] = '\0';
    return capture_buf;
}

/* Forgets what was captured so far. */
static inline void capture_clear(void)
{
    fflush(stderr);
    if (ftruncate(capture_fd, 0) == 0)
        lseek(capture_fd, 0, SEEK_SET);
}

static inline void capture_stop(void)
{
    if (capture_fd < 0)
        return;
    fflush(stderr);
    dup2(capture_saved, 2);
    close(capture_saved);
    close(capture_fd);
    capture_fd = capture_saved = -1;
    free(capture_buf);
    capture_buf = NULL;
}

/* ------------------------------------------------------------ files */
/* Writes text to unit_dir/name; its path into path (static per call site:
 * pass a buffer). */
static inline const char *unit_file(const char *name, const char *text, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", unit_dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f)) {
        perror(path);
        exit(2);
    }
    return path;
}

/* ------------------------------------------------------------ running */
/* No COLLX_ variable of the caller's shell reaches the cases. */
static inline void unit_clean_env(void)
{
    for (;;) {
        char name[256] = "";
        for (char **e = environ; e && *e; e++)
            if (!strncmp(*e, "COLLX_", 6)) {
                size_t n = strcspn(*e, "=");
                if (n < sizeof name) {
                    memcpy(name, *e, n);
                    name[n] = '\0';
                }
                break;
            }
        if (!name[0])
            return;
        unsetenv(name);
    }
}

static inline void unit_begin(const char *prog)
{
    unit_prog = prog;
    setvbuf(stdout, NULL, _IOLBF, 0);
    unit_clean_env();
    const char *tmp = getenv("TMPDIR");
    snprintf(unit_dir, sizeof unit_dir, "%s/collx_unit.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(unit_dir)) {
        perror("unit: mkdtemp");
        exit(2);
    }
}

/* Runs fn as case name; in a child process when forked (its environment
 * and once-only state are its own, and a crash is a failure of the case). */
static inline void unit_run(const char *name, void (*fn)(void), int forked)
{
    unit_case = name;
    unit_case_failures = 0;
    unit_cases++;
    if (!forked) {
        fn();
        capture_stop();
    } else {
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0) {
            perror("unit: fork");
            exit(2);
        }
        if (pid == 0) {
            fn();
            capture_stop();
            /* exit(): LeakSanitizer looks; a sanitizer's status is 1 */
            exit(unit_case_failures ? UNIT_CHILD_FAILED : 0);
        }
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        if (WIFSIGNALED(st))
            unit_fail(__FILE__, __LINE__, "killed by signal %d", WTERMSIG(st));
        else if (WEXITSTATUS(st) == UNIT_CHILD_FAILED)
            unit_case_failures++;   /* the child said which expectations failed */
        else if (WEXITSTATUS(st))
            unit_fail(__FILE__, __LINE__, "exited with status %d (a sanitizer's report "
                      "above?)", WEXITSTATUS(st));
    }
    if (unit_case_failures)
        unit_failed_cases++;
    else
        printf("ok   %s\n", name);
}

static inline int unit_end(void)
{
    DIR *d = opendir(unit_dir);   /* flat: the cases' files */
    for (struct dirent *e; d && (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            char path[600];
            snprintf(path, sizeof path, "%s/%s", unit_dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    if (rmdir(unit_dir))
        fprintf(stderr, "unit: could not remove %s\n", unit_dir);
    if (unit_failed_cases)
        printf("%s: %d of %d cases FAILED\n", unit_prog, unit_failed_cases, unit_cases);
    else
        printf("%s: all %d cases ok\n", unit_prog, unit_cases);
    return unit_failed_cases ? 1 : 0;
}

#endif
