"""Known false alarms of qualified grammars are not reported; real breakage still is.

C/C++: recovery regions caused by the preprocessor (split conditional branches, bare
macro invocations, macros inside declarations). HTML: omitted optional end tags and a
bare `>` in text. Each trap below is first shown to give the raw grammar a recovery
node, then shown clean through the checker's filter; each breakage stays flagged.
Real C headers are copied from /usr/include at test time (libc6-dev).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from orchestrate_plugins.treesitter_checker import candidate_regions, parse, recovery_regions

from tests.helpers import fail_or_skip


def _raw_and_reported(grammar: str, src: bytes) -> tuple[int, int]:
    tree = parse(grammar, src, time.monotonic() + 30)
    return len(list(recovery_regions(tree))), len(
        candidate_regions(grammar, src, tree, time.monotonic() + 30)
    )


C_TRAPS = {
    "extern_c_split_by_ifdef": b"""#ifndef X_H
#define X_H
#ifdef __cplusplus
extern "C" {
#endif
int f(int a);
#ifdef __cplusplus
}
#endif
#endif
""",
    "glibc_attribute_macros": b"""extern int vsprintf (char *__restrict __s, const char *__restrict __format,
                     __gnuc_va_list __arg) __THROWNL;
extern size_t __ctype_get_mb_cur_max (void) __THROW __wur;
extern int __memcmpeq (const void *__s1, const void *__s2, size_t __n)
     __THROW __attribute_pure__ __nonnull ((1, 2));
""",
    "macro_invocations_without_semicolon": b"""#include "x.h"
U_NAMESPACE_BEGIN
struct Entry { int a; };
SKM_DEFINE_STACK_OF_INTERNAL(Entry, Entry, Entry)
EXPORT_SYMBOL(f)
int f(void) { return 0; }
U_NAMESPACE_END
""",
    "branches_each_open_a_body": b"""#if defined(WIDE)
int count(const wchar_t *s) {
#else
int count(const char *s) {
#endif
    return s != 0;
}
""",
    "qualifier_macros_beside_macro_like_type_names": b"""OSSL_DEPRECATEDIN_3_0
void SRP_VBASE_free(SRP_VBASE *vb);
OSSL_DEPRECATEDIN_3_0 CONF_METHOD *NCONF_WIN32(void);
__owur int CRYPTO_THREAD_read_lock(CRYPTO_RWLOCK *lock);
int PKCS7_digest(PKCS7_ISSUER_AND_SERIAL *data, const EVP_MD *type);
""",
    "export_macros_in_declarations": b"""U_CAPI URegularExpression * U_EXPORT2
uregex_open(const UChar *pattern, int32_t length);
typedef png_struct * PNG_RESTRICT png_structrp;
""",
}

C_BREAKAGE = {
    "deleted_closing_brace": b"""#ifdef __cplusplus
extern "C" {
#endif
int f(int a) {
    if (a) {
        return 1;
    return 0;
}
#ifdef __cplusplus
}
#endif
""",
    "cut_string": b"""#include <stdio.h>
extern int puts (const char *__s) __THROW;
int main(void) {
    puts("hello);
    return 0;
}
""",
    "broken_statement_beside_macros": b"""__BEGIN_DECLS
extern int f (int __a) __THROW __wur;
int g(int a) { return a + * ; }
__END_DECLS
""",
}


@pytest.mark.parametrize("grammar", ["c", "cpp"])
@pytest.mark.parametrize("name", sorted(C_TRAPS))
def test_preprocessor_traps_are_not_reported(grammar: str, name: str) -> None:
    raw, reported = _raw_and_reported(grammar, C_TRAPS[name])
    if raw == 0:
        return  # this grammar already parses the trap
    assert reported == 0, f"{grammar}/{name}: {reported} of {raw} raw regions reported"


def test_the_c_traps_are_real_false_alarms_of_the_raw_grammar() -> None:
    raws = {name: _raw_and_reported("c", src)[0] for name, src in C_TRAPS.items()}
    assert all(raws.values()), raws


@pytest.mark.parametrize("grammar", ["c", "cpp"])
@pytest.mark.parametrize("name", sorted(C_BREAKAGE))
def test_real_c_breakage_is_still_reported(grammar: str, name: str) -> None:
    _, reported = _raw_and_reported(grammar, C_BREAKAGE[name])
    assert reported > 0, f"{grammar}/{name} went unreported"


#: glibc headers the raw C grammar flags and the filter clears (Debian libc6-dev).
REAL_HEADERS = ("search.h", "fcntl.h", "time.h", "locale.h")


@pytest.fixture
def real_headers(tmp_path: Path) -> Path:
    include = Path("/usr/include")
    missing = [h for h in REAL_HEADERS if not (include / h).is_file()]
    if missing:
        fail_or_skip(f"C headers missing {missing}: install libc6-dev (apt-get install libc6-dev)")
    for h in REAL_HEADERS:
        shutil.copyfile(include / h, tmp_path / h)
    return tmp_path


def test_real_glibc_headers_flagged_raw_are_clean_after_filtering(real_headers: Path) -> None:
    results = {h: _raw_and_reported("c", (real_headers / h).read_bytes()) for h in REAL_HEADERS}
    assert all(raw for raw, _ in results.values()), results
    assert all(reported == 0 for _, reported in results.values()), results


def test_broken_copies_of_real_headers_are_still_flagged(real_headers: Path) -> None:
    src = (real_headers / "search.h").read_bytes()
    cut = src.rindex(b"}")
    no_brace = src[:cut] + src[cut + 1 :]
    assert _raw_and_reported("c", no_brace)[1] > 0
    time_h = (real_headers / "time.h").read_bytes()
    at = time_h.index(b"\n", time_h.index(b"__BEGIN_DECLS")) + 1
    cut_string = time_h[:at] + b'static const char *zone = "UTC;\n' + time_h[at:]
    assert _raw_and_reported("c", cut_string)[1] > 0


HTML_TRAPS = {
    "p_without_end_tag": b"<!DOCTYPE html>\n<p>one\n<p>two\n",
    "optional_tags_to_end_of_file": b"<!DOCTYPE html>\n<html><head><title>t</title>\n<body>\n<p>x\n",
    "list_items_at_end_of_file": b"<!DOCTYPE html>\n<title>t</title>\n<p>intro\n<li>a\n",
    "bare_greater_than_in_text": b"<p>Ruby: <span># => x</span></p>\n<p>a > b</p>\n",
    "last_paragraph_open": b"<p>first</p>\n<p>second\n",
    # HTML5: a `&` that starts no character reference is text (jQuery Mobile's demos).
    "bare_ampersand_in_text": b'<ul><li><a href="x/">Text inputs & textarea</a></li></ul>\n',
    "bare_ampersand_in_textarea": b"<textarea>\n  - install go gdb functions & printer\n</textarea>\n",
}

HTML_BREAKAGE = {
    "div_never_closed": b"<!DOCTYPE html>\n<div><span>x</span>\n",
    "unterminated_comment": b"<p>a</p>\n<!-- never closed\n<p>b</p>\n",
    "unterminated_attribute": b'<p class="x>a</p>\n<div>b</div>\n',
    "bad_start_tag": b"<p>a</p>\n<div <span>b</span></div>\n",
    "ampersand_then_broken_tag": b"<div>a & <span b</span></div>\n",
}


@pytest.mark.parametrize("name", sorted(HTML_TRAPS))
def test_html5_optional_forms_are_not_reported(name: str) -> None:
    raw, reported = _raw_and_reported("html", HTML_TRAPS[name])
    assert raw > 0, f"{name} is no trap for the raw grammar"
    assert reported == 0, name


@pytest.mark.parametrize("name", sorted(HTML_BREAKAGE))
def test_real_html_breakage_is_still_reported(name: str) -> None:
    assert _raw_and_reported("html", HTML_BREAKAGE[name])[1] > 0, name


@pytest.mark.parametrize(
    "src",
    [
        b'for cs in {{,us-}ascii,latin1}; do echo "$cs"; done\n',
        b"echo {a,b}{c,d} {1..3} x{,.bak}\n",
        b"iconv -f {{,us-}ascii,latin1} -t utf-8 file\n",
    ],
)
def test_bash_brace_expansion_is_clean(src: bytes) -> None:
    assert _raw_and_reported("bash", src) == (0, 0)


#: Jekyll's stylesheets open with front matter (jekyll 4.3.1's blank_template/main.scss
#: is exactly the first one), which Jekyll strips before Sass reads the file.
SCSS_FRONT_MATTER_TRAPS = {
    "empty_front_matter": b'---\n---\n\n@import "main";\n',
    # jekyll 4.3.1's theme_template/example/style.scss opens so.
    "empty_front_matter_then_comments": b'---\n---\n\n// Here, you can test\n@import "x";\n',
}

SCSS_BREAKAGE_WITH_FRONT_MATTER = {
    "stray_brace_after_it": b"---\n---\n.a { color: red }\n}\n",
    "dashes_not_at_the_start": b".a { color: red; }\n---\n---\n",
}


@pytest.mark.parametrize("name", sorted(SCSS_FRONT_MATTER_TRAPS))
def test_scss_front_matter_is_not_reported(name: str) -> None:
    raw, reported = _raw_and_reported("scss", SCSS_FRONT_MATTER_TRAPS[name])
    assert raw > 0, f"{name} is no trap for the raw grammar"
    assert reported == 0, name


@pytest.mark.parametrize("name", sorted(SCSS_BREAKAGE_WITH_FRONT_MATTER))
def test_real_scss_breakage_beside_front_matter_is_still_reported(name: str) -> None:
    assert _raw_and_reported("scss", SCSS_BREAKAGE_WITH_FRONT_MATTER[name])[1] > 0, name
