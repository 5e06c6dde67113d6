#ifndef UTIL_H
#define UTIL_H

#include <stdbool.h>

struct point {
    double x, y;
};

union value {
    long i;
    double d;
};

extern int verbosity;

bool point_equal(const struct point *a, const struct point *b);
void for_each(int *items, int n, void (*fn)(int *));

static inline int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

#endif
