/* Macro-heavy header with a real break: a function body loses its closing brace. */
#ifndef DEMO_BROKEN_H
#define DEMO_BROKEN_H 1

#ifdef __cplusplus
extern "C" {
#endif

extern size_t demo_length (const char *__s) __THROW __nonnull ((1));

static inline int demo_clamp(int v) {
    if (v < 0) {
        return 0;
    return v;
}

#ifdef __cplusplus
}
#endif

#endif
