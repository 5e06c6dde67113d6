"""Language detection: extensions, special names, shebangs, sniffing of shared extensions."""

from __future__ import annotations

import subprocess
import sys

import pytest

from orchestrator.model.languages import (
    detect,
    grammar_info,
    manifest,
    needs_head,
    shebang_language,
)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("main.go", "go"),
        ("src/lib.rs", "rust"),
        ("App.java", "java"),
        ("x.c", "c"),
        ("x.cpp", "cpp"),
        ("x.hpp", "cpp"),
        ("a/b/Program.CS", None),  # shared extension and no content: undecided
        ("index.js", "javascript"),
        ("App.jsx", "javascript"),
        ("mod.mjs", "javascript"),
        ("comp.tsx", "tsx"),
        ("types.mts", "typescript"),
        ("data.json", "json"),
        ("ci.yml", "yaml"),
        ("Cargo.toml", "toml"),
        ("run.sh", "bash"),
        ("init.lua", "lua"),
        ("index.php", "php"),
        ("build.gradle.kts", "kotlin"),
        ("View.swift", "swift"),
        ("Main.scala", "scala"),
        ("site.css", "css"),
        ("index.html", "html"),
        ("tool.py", "python"),
        ("stubs.pyi", "python"),
        ("model.rb", "ruby"),
        ("Gemfile", "ruby"),
        ("sub/Rakefile", "ruby"),
        ("Makefile", "make"),
        ("Dockerfile", "dockerfile"),
        ("Dockerfile.prod", "dockerfile"),
        ("CMakeLists.txt", "cmake"),
        ("notes.xyz", None),
        ("README", None),
    ],
)
def test_detect_by_name(path: str, expected: str | None) -> None:
    assert detect(path) == expected


@pytest.mark.parametrize(
    ("path", "head", "expected"),
    [
        ("x.h", b"#include <stdio.h>\nint f(void);\n", "c"),
        ("x.h", b"#pragma once\nnamespace a {\nclass B {};\n}\n", "cpp"),
        ("x.h", b"#include <vector>\nstd::vector<int> v;\n", "cpp"),
        ("x.h", b"#import <Foundation/Foundation.h>\n@interface A : NSObject\n@end\n", "objc"),
        ("x.m", b"#import <Foundation/Foundation.h>\n@implementation A\n@end\n", "objc"),
        ("x.m", b"function y = f(x)\n  y = x + 1;\nend\n", "matlab"),
        ("x.m", b"(* Mathematica *)\nf[x_] := x^2\n", None),
        ("app.ts", b"const x: number = 1;\n", "typescript"),
        ("app_de.ts", b'<?xml version="1.0"?>\n<!DOCTYPE TS>\n<TS version="2.1">', "xml"),
        ("app_de.ts", b"\xef\xbb\xbf<TS version='2.1'>", "xml"),
        ("a.pl", b"use strict;\nmy $x = 1;\n", "perl"),
        ("a.pl", b"#!/usr/bin/perl\nprint 1;\n", "perl"),
        ("a.pl", b":- module(a, [f/1]).\nf(X) :- X > 1.\n", None),
        ("a.pl", b"likes(mary, wine).\n", None),
        ("A.cs", b"using System;\nclass A {}\n", "csharp"),
        ("A.cs", b"!Object methodsFor: 'x'!\nfoo\n  ^1! !\n", None),
        ("a.ex", b"defmodule A do\nend\n", "elixir"),
        ("a.ex", b"include std/io.e\nprocedure p()\nend procedure\n", None),
        ("a.R", b"x <- 1\n", "r"),
        ("a.r", b"REBOL [Title: 'x']\nprint 1\n", None),
        ("main.d", b"module app.main;\nimport std.stdio;\n", "d"),
        ("main.d", b"main.o: main.c util.h \\\n util2.h\n", "make"),
        ("main.d", b"whatever\n", None),
    ],
)
def test_shared_extensions_sniff_content(path: str, head: bytes, expected: str | None) -> None:
    assert needs_head(path)
    assert detect(path, head) == expected


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"#!/bin/sh\necho hi\n", "bash"),
        (b"#!/usr/bin/env bash\n", "bash"),
        (b"#!/usr/bin/env python3\n", "python"),
        (b"#!/usr/bin/python3.12\n", "python"),
        (b"#!/usr/bin/env -S node --no-warnings\n", "javascript"),
        (b"#!/usr/bin/env ruby\n", "ruby"),
        (b"#!/bin/zsh\n", None),
        (b"#!\n", None),
        (b"no shebang\n", None),
    ],
)
def test_shebang(head: bytes, expected: str | None) -> None:
    assert shebang_language(head) == expected
    assert detect("bin/tool", head) == expected


@pytest.mark.parametrize(
    "head", [b"#!/usr/bin/env perl6\n\nuse v6;\n", b"#!/usr/bin/raku\n", b"#!/usr/bin/env rakudo\n"]
)
def test_a_perl6_shebang_is_raku_not_perl(head: bytes) -> None:
    """Pygments' tests/examplefiles/perl6/test.p6 starts `#!/usr/bin/env perl6`: Raku,
    which no bundled grammar parses, so the Perl grammar never sees it."""
    assert shebang_language(head) == "raku"
    assert detect("test.p6", head) is None


def test_extension_wins_over_shebang() -> None:
    assert detect("x.rb", b"#!/usr/bin/env python3\n") == "ruby"


def test_a_script_named_ini_is_its_shebang_language() -> None:
    # ansible-core's module_precedence tests name Python modules `a.ini`.
    assert needs_head("library/a.ini")
    assert detect("library/a.ini", b"#!/usr/bin/python\nimport json\n") == "python"
    assert detect("x.ini", b"#!/usr/bin/env bash\necho hi\n") == "bash"
    # An INI file stays INI: a comment, no comment, or a `#!` naming no interpreter.
    assert detect("x.ini", b"# settings\n[a]\nb = 1\n") == "ini"
    assert detect("x.ini", b"[a]\nb = 1\n") == "ini"
    assert detect("x.ini", b"#! not a program\n[a]\n") == "ini"
    assert detect("x.ini") == "ini"


def test_grammar_info() -> None:
    tsx = grammar_info("tsx")
    assert tsx is not None and tsx.grammar == "tsx" and tsx.qualified
    assert ".tsx" in tsx.extensions
    assert grammar_info(None) is None
    assert grammar_info("no-such-language") is None
    assert len(manifest()) >= 30


@pytest.mark.e2e
def test_languages_module_does_not_import_tree_sitter() -> None:
    code = (
        "import sys; import orchestrator.model.languages as l; l.detect('a.go'); l.grammar_info('go');"
        "print(any(m.startswith('tree_sitter') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


#: Plain C headers as projects ship them: an include guard, structs and typedefs, prose
#: in comments that happens to use C++ words, and the `__cplusplus` guard C headers
#: carry for C++ readers. Before: both were detected as C++ ("virtual", `public:` in a
#: comment, `class X {` in a doc example, `std::` in a string).
_C_HEADERS = {
    "uv_fs.h": (
        b"/* Copyright Joyent, Inc. and other Node contributors.\n"
        b" * Maps the virtual file system onto the host's.\n"
        b" */\n"
        b"#ifndef UV_FS_H\n#define UV_FS_H\n\n"
        b'#ifdef __cplusplus\nextern "C" {\n#endif\n\n'
        b"#include <stddef.h>\n\n"
        b"typedef struct uv_fs_s uv_fs_t;\n"
        b"struct uv_fs_s {\n  void* data;\n  size_t result;  // never nullptr here\n};\n\n"
        b"int uv_fs_open(uv_fs_t* req, const char* path, int flags);\n\n"
        b"#ifdef __cplusplus\n}\n#endif\n#endif /* UV_FS_H */\n"
    ),
    "config.h": (
        b"#ifndef CONFIG_H\n#define CONFIG_H\n"
        b"/*\n * Usage:\n *   public: the exported table\n"
        b" *   class Foo { }   (the C++ wrapper, see cpp/)\n */\n"
        b'#define BANNER "std::cout is not used here"\n'
        b"typedef enum { MODE_A, MODE_B } mode_t;\n"
        b"typedef struct { mode_t mode; char name[32]; } config_t;\n"
        b"#endif\n"
    ),
}


@pytest.mark.parametrize("name", sorted(_C_HEADERS))
def test_plain_c_headers_are_c(name: str) -> None:
    assert detect(name, _C_HEADERS[name]) == "c"


def test_c_code_drops_comments_literals_and_the_cplusplus_guard() -> None:
    from orchestrator.model.languages import c_code

    code = c_code(_C_HEADERS["uv_fs.h"])
    assert b"virtual" not in code and b'extern "C"' not in code and b"nullptr" not in code
    assert b"typedef struct uv_fs_s uv_fs_t;" in code and b"#ifndef UV_FS_H" in code
    # A C++ header keeps its markers: a real class outside any comment.
    assert detect("w.h", b"// wrapper\nclass Wrapper : public Base {\n};\n") == "cpp"
