/* Declarations in the style of glibc and ICU headers: macros the grammar cannot see. */
#ifndef DEMO_H
#define DEMO_H 1

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

__BEGIN_DECLS

extern size_t demo_length (const char *__s) __THROW __attribute_pure__ __nonnull ((1));
extern char *demo_copy (char *__restrict __dest, const char *__restrict __src)
     __THROW __nonnull ((1, 2)) __wur;

U_CAPI int U_EXPORT2
demo_open(const char *name, int flags);

DEMO_DEFINE_STACK_OF(demo_item)

#if defined(DEMO_WIDE)
static inline int demo_count(const wchar_t *s) {
#else
static inline int demo_count(const char *s) {
#endif
    return s != NULL;
}

__END_DECLS

#ifdef __cplusplus
}
#endif

#endif /* DEMO_H */
