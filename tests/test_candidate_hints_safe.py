"""Every hint a syntax candidate can carry proposes a command that only parses the file.

A candidate's message says what to run to confirm it (the manifest's `confirm`, or the
default), and its scope carries a fixed hint. Someone reading "confirm with tclsh
<file>" runs the file; `make -n` evaluates `$(shell ...)`. The rule below is this
test's own, independent of the code it judges: no interpreter given the file to run,
no build that runs project code (build scripts, macros, compile-time evaluation),
no make at all, no database client, nothing vague that cannot be checked.
"""

from __future__ import annotations

import re

import pytest
from orchestrate_plugins import treesitter_checker as ts
from orchestrate_plugins.treesitter_checker import Region, candidate_message

from orchestrator.model.languages import GrammarInfo, manifest

#: (pattern, why it executes code). Searched in a hint, case-insensitive, as words.
EXECUTES = (
    (r"(?<!elm )(?<!raco )\bmake\b", "make evaluates $(shell ...) even with -n"),
    (r"\b(tclsh|wish|expect)\b", "runs the Tcl script"),
    (r"\bjulia\s+(?!--startup-file=no -e)\S*<file>", "runs the Julia file"),
    (r"--load\b", "loads (runs) the file"),
    (r"\bcmake\s+-P\b", "runs the CMake script"),
    (r"\bperl\s+-c\b", "perl -c runs BEGIN and use blocks"),
    (r"\bcargo\s+(check|build|run)\b", "build.rs and proc macros run"),
    (r"\bmix\s+compile\b", "Elixir macros run at compile time"),
    (r"\bdotnet\s+build\b", "MSBuild targets and source generators run"),
    (r"\braco\s+make\b", "Racket macros run at compile time"),
    (r"\bghc\b", "Template Haskell splices run, with -fno-code too"),
    (r"\bhaxe\s+--no-output\b", "Haxe macros run at compile time"),
    (r"\bnim\s+check\b", "static blocks and staticExec run at compile time"),
    (r"\bgroovyc\b", "AST transforms and @Grab run at compile time"),
    (r"\berlc\b", "parse transforms run at compile time"),
    (r"\bjsonnet\s+<file>", "evaluates the file"),
    (r"\bpsql\b", "executes the SQL"),
    (r"\bjavac\b(?!\s+-proc:none)", "annotation processors found on the classpath run"),
    (r"\bcompiler\b", "a compiler may run the file's macros: name a parser"),
    (r"consuming program", "runs the program that reads the file"),
    (r"\b(bash|sh|zsh|fish|dash|ksh)\s+(?!-n\b)\S*<file>", "runs the shell script"),
    (r"\b(python3?|node|ruby|php|lua|Rscript)\s+<file>", "runs the file"),
)


def violations(hint: str) -> list[str]:
    """Why `hint` proposes a command that executes code, or nothing when it does not."""
    return [why for pattern, why in EXECUTES if re.search(pattern, hint, re.IGNORECASE)]


def test_the_rule_catches_what_it_should() -> None:
    for bad in ("tclsh <file> (or nagelfar)", "make -n", "julia <file>", "cargo check"):
        assert violations(bad), bad
    for good in ("bash -n <file>", "node --check <file>", "javac -proc:none <file>"):
        assert violations(good) == [], good


@pytest.mark.parametrize("info", list(manifest().values()), ids=lambda i: i.language)
def test_no_candidate_message_proposes_running_code(info: GrammarInfo) -> None:
    for kind in ("error", "missing"):
        region = Region(kind, "identifier", 0, 0, 0, 1, 0)
        message = candidate_message(region, info.confirm)
        assert violations(message) == [], (info.language, message)


def test_the_fixed_hints_propose_nothing_that_runs_code() -> None:
    for hint in (
        ts.CONFIRM_DEFAULT,
        ts.HINT_SUSPECT,
        ts.HINT_CLEAN.format(language="tcl"),
        ts.HINT_CONFIRMED.format(parser="nagelfar"),
    ):
        assert violations(hint) == [], hint


def test_the_exact_parsers_the_tier_runs_only_parse() -> None:
    """The commands behind a `confirmed`/`refuted` verdict (its hint names the parser)."""
    from orchestrate_plugins.exact_parsers import PARSERS

    for parser in PARSERS:
        if parser.command is None:
            continue
        line = " ".join([parser.command, *parser.argv]).replace("{file}", "<file>")
        assert violations(line) == [], (parser.name, line)
