"""Traps for language detection: shared extensions, templates, front matter.

Every trap is valid code of its language. Detection must name that language (or say
the file is ambiguous, with the candidates, instead of guessing), and no `checked`
scope may carry a syntax finding on any of them: a template in .html is not HTML, a
Hack file in .hh is not C++, a tile set in .tsx is not TSX.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from helpers import new_repo, run_cli

from orchestrator.deadline import Deadline
from orchestrator.git.runner import Git
from orchestrator.git.surfaces import commit_surface
from orchestrator.model.languages import (
    SNIFFED,
    detect_language,
    manifest,
    shared_extensions,
)
from orchestrator.model.report import json_schema
from orchestrator.vocab import DetectedBy

AMBIGUOUS = None  # expected "language" of a file detection must call ambiguous

#: path -> (content, expected language or AMBIGUOUS)
TRAPS: dict[str, tuple[str, str | None]] = {
    # .h: C, C++, Objective-C
    "h/plain.h": ("#include <stdio.h>\n#define MAX 10\nint add(int a, int b);\n", "c"),
    "h/point.h": (
        "#pragma once\n#include <vector>\nnamespace geo {\nclass Point {\n public:\n"
        "  int x;\n};\n}  // namespace geo\n",
        "cpp",
    ),
    "h/greeter.h": (
        "#import <Foundation/Foundation.h>\n@interface Greeter : NSObject\n- (void)greet;\n@end\n",
        "objc",
    ),
    # .m: Objective-C, MATLAB, Mercury, M (MUMPS), and one nothing settles
    "m/greeter.m": (
        '#import "greeter.h"\n@implementation Greeter\n- (void)greet {\n  NSLog(@"hi");\n}\n@end\n',
        "objc",
    ),
    "m/square.m": (
        "function y = square(x)\n%SQUARE the square of x\n  y = x .^ 2;\nend\n",
        "matlab",
    ),
    "m/hello.m": (
        ":- module hello.\n:- interface.\n:- import_module io.\n"
        ":- pred main(io::di, io::uo) is det.\n:- implementation.\n"
        'main(!IO) :- io.write_string("hi\\n", !IO).\n',
        "mercury",
    ),
    "m/HELLO.m": ('HELLO ; greet the world\n W "Hello, World!",!\n Q\n', "mumps"),
    "m/assign.m": ("x = 1;\n", AMBIGUOUS),
    # .pm: Perl, Raku, X PixMap
    "pm/Bar.pm": (
        "package Foo::Bar;\nuse strict;\nuse warnings;\n\n"
        "sub new {\n    my ($class) = @_;\n    return bless {}, $class;\n}\n\n1;\n",
        "perl",
    ),
    "pm/Greet.pm": (
        'unit module Greet;\nsub greet(Str $name) is export {\n    say "Hello, $name";\n}\n',
        "raku",
    ),
    "pm/icon.pm": (
        '/* XPM */\nstatic char *icon[] = {\n"2 2 1 1",\n"a c #000000",\n"aa",\n"aa"};\n',
        "xpm",
    ),
    # .fs: F#, GLSL, Forth
    "fs/Hello.fs": ('module Hello\n\nlet square x = x * x\nprintfn "%d" (square 3)\n', "fsharp"),
    "fs/shader.fs": (
        "#version 330 core\nout vec4 color;\nvoid main() {\n  color = vec4(1.0);\n}\n",
        "glsl",
    ),
    "fs/square.fs": (": square ( n -- n*n ) dup * ;\n\\ print it\n5 square .\n", "forth"),
    # .r: R, Rez
    "r/square.r": ("square <- function(x) x^2\nprint(square(3))\n", "r"),
    "r/strings.r": (
        '#include "Types.r"\n\nresource \'STR#\' (128) {\n  { "Hello" }\n};\n',
        "rez",
    ),
    # .rs: Rust, RenderScript, XML
    "rs/main.rs": ('fn main() {\n    println!("hi");\n}\n', "rust"),
    "rs/invert.rs": (
        "#pragma version(1)\n#pragma rs java_package_name(com.example)\n\n"
        "uchar4 RS_KERNEL invert(uchar4 in) {\n  return in;\n}\n",
        "renderscript",
    ),
    "rs/strings.rs": (
        '<?xml version="1.0" encoding="utf-8"?>\n<resources>\n'
        '  <string name="app">demo</string>\n</resources>\n',
        "xml",
    ),
    # .hh: Hack, C++
    "hh/add.hh": (
        "<?hh // strict\nfunction add(int $a, int $b): int {\n  return $a + $b;\n}\n",
        "hack",
    ),
    "hh/point.hh": ("#pragma once\nclass Point {\n public:\n  int x;\n};\n", "cpp"),
    # .tsx: TSX, Tiled tile sets (XML)
    "tsx/App.tsx": ('export const App = () => <div className="a">hi</div>;\n', "tsx"),
    "tsx/tiles.tsx": (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<tileset version="1.2" name="t" tilewidth="16" tileheight="16" tilecount="1" '
        'columns="1">\n <image source="t.png" width="16" height="16"/>\n</tileset>\n',
        "xml",
    ),
    # .sql: five dialects and the plain kind
    "sql/pg.sql": (
        "CREATE OR REPLACE FUNCTION one() RETURNS int AS $$\nBEGIN\n  RETURN 1;\nEND;\n"
        "$$ LANGUAGE plpgsql;\n",
        "postgresql",
    ),
    "sql/my.sql": (
        "CREATE TABLE `t` (\n  `id` int NOT NULL AUTO_INCREMENT,\n  PRIMARY KEY (`id`)\n"
        ") ENGINE=InnoDB;\n",
        "mysql",
    ),
    "sql/my_proc.sql": (
        "DELIMITER $$\nCREATE PROCEDURE p()\nBEGIN\n  SELECT 1;\nEND$$\nDELIMITER ;\n",
        "mysql",
    ),
    "sql/ms.sql": (
        "CREATE TABLE [dbo].[t] ([id] INT IDENTITY(1,1) NOT NULL);\nGO\n"
        "DECLARE @x NVARCHAR(10);\nGO\n",
        "tsql",
    ),
    "sql/ora.sql": (
        "CREATE OR REPLACE PROCEDURE p IS\n  v VARCHAR2(10);\nBEGIN\n  v := 'x';\nEND;\n/\n",
        "plsql",
    ),
    "sql/lite.sql": (
        "PRAGMA foreign_keys = ON;\n"
        "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT);\n",
        "sqlite",
    ),
    "sql/plain.sql": ("SELECT a, b FROM t WHERE a = 1 ORDER BY b;\n", "sql"),
    # .sv: SystemVerilog, and a Swedish page named by content negotiation (help.html.sv)
    "sv/counter.sv": (
        "module counter (input logic clk, output logic [3:0] q);\n"
        "  always_ff @(posedge clk) q <= q + 1;\nendmodule\n",
        "verilog",
    ),
    "sv/help.html.sv": (
        '<!DOCTYPE html>\n<html lang="sv">\n<head><title>Hj\u00e4lp</title></head>\n'
        "<body><p>Tryck p\u00e5 mellanslag.</p></body>\n</html>\n",
        "html",
    ),
    # .yaml: YAML, MiniYAML
    "yaml/ci.yaml": ("name: demo\nitems:\n  - a\n  - b\n", "yaml"),
    "yaml/world.yaml": ("World:\n\tInherits: ^BaseWorld\n\tTerrainRenderer:\n", "miniyaml"),
    # templates in .html
    "html/jinja.html": (
        '{% extends "base.html" %}\n{% block content %}\n<p>{{ user.name }}</p>\n{% endblock %}\n',
        "jinja",
    ),
    "html/liquid.html": (
        "{% assign n = site.posts | size %}\n<p>{{ page.title }} ({{ n }})</p>\n",
        "liquid",
    ),
    "html/jekyll.html": (
        "---\nlayout: default\ntitle: Home\n---\n<h1>{{ page.title }}</h1>\n",
        "liquid",
    ),
    "html/ejs.html": (
        "<ul><% users.forEach(function(u){ %><li><%= u.name %></li><% }) %></ul>\n",
        "ejs",
    ),
    "html/erb.html": (
        "<ul>\n<% @items.each do |i| %>\n  <li><%= i.name %></li>\n<% end %>\n</ul>\n",
        "erb",
    ),
    "html/php.html": (
        "<html><body>\n<?php foreach ($items as $i): ?>\n<p><?= htmlspecialchars($i) ?></p>\n"
        "<?php endforeach; ?>\n</body></html>\n",
        "php",
    ),
    "xml/php.xml": (
        # PHP prints the declaration itself: `<?xml` would open a short PHP tag.
        "<?php echo '<?xml version=\"1.0\"?>'; ?>\n<rss><?php echo $channel; ?></rss>\n",
        "php",
    ),
    # A stylesheet's comment naming PHP tags is no PHP (highlight.js's base16 themes).
    "css/base16.css": (
        "/* base0F - Opening/Closing Embedded Language Tags, e.g. <?php ?> */\n"
        "pre code.hljs { display: block; }\n",
        "css",
    ),
    "html/php-in-comment.html": (
        "<!doctype html>\n<!-- served as <?php echo 1; ?> elsewhere -->\n<p>hi</p>\n",
        "html",
    ),
    "html/hbs.html": ("<ul>{{#each people}}<li>{{this.name}}</li>{{/each}}</ul>\n", "handlebars"),
    "html/plain.html": (
        "<!DOCTYPE html>\n<html>\n<head><title>t</title></head>\n"
        '<body><p><a href="page.html">site.map</a></p><script>var a = {b: {c: 1}};</script>'
        "</body>\n</html>\n",
        "html",
    ),
    # templates in .xml
    "xml/jinja.xml": (
        '<?xml version="1.0"?>\n<feed>{% for e in entries %}<entry>{{ e.title }}</entry>'
        "{% endfor %}</feed>\n",
        "jinja",
    ),
    "xml/feed.xml": (
        '---\nlayout: null\n---\n<?xml version="1.0"?>\n<feed>{% for post in site.posts %}'
        "<entry>{{ post.title | xml_escape }}</entry>{% endfor %}</feed>\n",
        "liquid",
    ),
    "xml/erb.xml": (
        '<?xml version="1.0"?>\n<a><% @xs.each do |x| %><b><%= x %></b><% end %></a>\n',
        "erb",
    ),
    "xml/plain.xml": ('<?xml version="1.0"?>\n<a><b c="d">e</b></a>\n', "xml"),
    # templates in .css
    "css/jinja.css": ("body {\n  color: {{ color }};\n}\n", "jinja"),
    "css/jekyll.css": ('---\n---\n@import "main";\nbody { color: red; }\n', "liquid"),
    "css/erb.css": ("body { color: <%= @color %>; }\n", "erb"),
    "css/ejs.css": ("body { color: <%= color %>; }\n", "ejs"),
    "css/plain.css": ("body {\n  color: red;\n}\n", "css"),
}


@pytest.mark.parametrize(("path", "case"), sorted(TRAPS.items()), ids=sorted(TRAPS))
def test_trap_is_detected_as_its_language_or_said_ambiguous(
    path: str, case: tuple[str, str | None]
) -> None:
    content, expected = case
    d = detect_language(path, content.encode())
    ext = Path(path).suffix
    if expected is AMBIGUOUS:
        assert d.language is None and d.detected_by is None
        assert d.undecided is not None and d.undecided.startswith(f"ambiguous: {ext} could be ")
    else:
        assert (d.language, d.detected_by, d.undecided) == (expected, DetectedBy.HEURISTIC, None)


def test_ambiguity_names_the_candidates() -> None:
    d = detect_language("x.m", b"x = 1;\n")
    assert d.undecided == (
        "ambiguous: .m could be Objective-C, MATLAB, Mercury, M (MUMPS), Mathematica"
    )


def test_every_shared_extension_has_a_heuristic_answering_only_its_languages() -> None:
    """The manifest lists the shared extensions; each has a heuristic, and every trap
    answer for that extension is one of the languages the manifest lists for it."""
    shared = shared_extensions()
    owners: dict[str, set[str]] = {}
    for info in manifest().values():
        for ext in info.extensions:
            owners.setdefault(ext, set()).add(info.language)
    assert {e for e, langs in owners.items() if len(langs) > 1} <= set(shared)
    assert set(shared) == set(SNIFFED)
    for path, (content, expected) in TRAPS.items():
        ext = Path(path).suffix
        assert ext in shared, path
        if expected is not AMBIGUOUS:
            assert expected in shared[ext], (path, expected)
        assert SNIFFED[ext](content.encode()) in (*shared[ext], None)


def test_detection_reads_only_the_head() -> None:
    """Markers past HEAD_BYTES are not seen: detection costs one bounded read."""
    filler = b"// padding\n" * 500  # > 4096 bytes of C++-neutral text
    assert detect_language("x.h", filler + b"@interface A\n@end\n").language == "c"


def test_names_shebangs_and_identify_say_how_they_decided() -> None:
    assert detect_language("Makefile").detected_by == DetectedBy.FILENAME
    assert detect_language("a.go").detected_by == DetectedBy.EXTENSION
    assert detect_language("tool", b"#!/usr/bin/env python3\n").detected_by == DetectedBy.SHEBANG
    # An interpreter our table lacks comes from identify's.
    assert detect_language("tool", b"#!/usr/bin/env escript\n").language == "erlang"
    # A name the manifest does not know: identify names it; still no grammar.
    liquid = detect_language("page.liquid")
    assert (liquid.language, liquid.detected_by) == ("liquid", DetectedBy.EXTENSION)
    assert detect_language("notes.xyz").language is None
    # identify's table names files; it never picks a grammar the manifest did not list
    # for that extension (.v is Verilog to identify, and also Coq and V).
    assert detect_language("Proof.v", b"Theorem t : True.\nProof. trivial. Qed.\n").language is None
    # An empty file of a shared extension with a default is that default.
    assert detect_language("empty.html", b"").language == "html"


@pytest.mark.e2e
def test_traps_end_to_end_no_checked_scope_flags_valid_code(tmp_path: Path) -> None:
    """One real `orchestrate lint` over every trap: each scope records the detected
    language and how it was decided, ambiguous files are unsupported with the reason,
    templates are never parsed as HTML/XML/CSS, and no checked scope has a finding."""
    root = tmp_path / "traps"
    for path, (content, _) in TRAPS.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(content)
    res = run_cli(["lint", ".", "--format", "json"], cwd=root)
    report = json.loads(res.stdout)
    jsonschema.validate(report, json_schema())
    by_path: dict[str, list[dict]] = {}
    for s in report["scopes"]:
        by_path.setdefault(s["path"], []).append(s)
    # Style findings (yamllint's document-start) may appear; syntax findings may not.
    findings_on = {f["path"] for f in report["findings"] if f["candidate"] or "syntax" in f["rule"]}
    for path, (_, expected) in TRAPS.items():
        scopes = by_path[path]
        for s in scopes:
            if s["status"] == "checked":
                assert path not in findings_on, (path, s, report["findings"])
        syntax = [s for s in scopes if s["checker"] in ("treesitter", "orchestrate")]
        if expected is AMBIGUOUS:
            (s,) = syntax
            assert s["status"] == "unsupported" and s["reason"].startswith("ambiguous: ")
            continue
        named = [s for s in scopes if s["language"] is not None]
        assert named, (path, scopes)
        for s in named:
            assert (s["language"], s["detected_by"]) == (expected, "heuristic"), (path, s)
        for s in syntax:
            if expected not in manifest():
                assert s["status"] == "unsupported", (path, s)
            elif not manifest()[expected].qualified:
                # Unqualified: candidates only, unless the language's own parser decided
                # the file (then it is checked by that parser, which is named).
                decided = s.get("syntax_parser") is not None and s.get("syntax_evidence") in (
                    None,
                    "confirmed",
                    "refuted",
                )
                assert s["status"] == ("checked" if decided else "unqualified"), (path, s)
                if manifest()[expected].template:
                    assert manifest()[expected].note in s["reason"], (path, s)
    # Plain markup is still checked by its grammar when that grammar is qualified, or by
    # the language's own parser (xmllint) when one decided it (a grammar real code failed,
    # grammars/qualify.py, leaves it an unqualified scope otherwise, never an error).
    for path in ("html/plain.html", "xml/plain.xml", "css/plain.css", "rs/main.rs"):
        (s,) = [s for s in by_path[path] if s["language"] is not None][:1]
        decided = s.get("syntax_parser") is not None and s.get("syntax_evidence") != "candidate"
        checked = manifest()[s["language"]].qualified or decided
        want = "checked" if checked else "unqualified"
        assert any(x["status"] == want for x in by_path[path]), by_path[path]


def test_a_staged_surface_is_detected_from_its_staged_bytes(tmp_path: Path) -> None:
    """Gates judge the index: the staged blob's head decides, not the work tree's."""
    repo = new_repo(
        tmp_path / "repo",
        {"a.m": TRAPS["m/hello.m"][0], "b.m": "x = 1;\n", "page.html": "{{ x }}\n"},
    )
    (repo / "a.m").write_text(TRAPS["m/square.m"][0])  # the work tree says MATLAB
    targets = {t.path: t for t in commit_surface(Git(repo, Deadline.after(60))).targets}
    assert (targets["a.m"].language, targets["a.m"].detected_by) == (
        "mercury",
        DetectedBy.HEURISTIC,
    )
    assert targets["b.m"].language is None
    assert (targets["b.m"].undecided or "").startswith("ambiguous: .m could be ")
    assert targets["page.html"].language == "jinja"
