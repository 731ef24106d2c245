/* Test helper: CHECK(cond, fmt, ...) counts a failure and prints
 * "FAIL rank R: ..." when cond is false; the test file defines the ints
 * rank and failures. */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdio.h>

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            failures++;                                                        \
            printf("FAIL rank %d: ", rank);                                    \
            printf(__VA_ARGS__);                                               \
            printf("\n");                                                      \
        }                                                                      \
    } while (0)

#endif
