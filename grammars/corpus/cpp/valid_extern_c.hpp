// A header shared with C: linkage block split across preprocessor conditionals.
#ifndef SHAPES_C_HPP
#define SHAPES_C_HPP

#ifdef __cplusplus
extern "C" {
#endif

DEMO_API int shape_count(void) DEMO_NOEXCEPT;
DEMO_API double shape_area(int index) DEMO_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
