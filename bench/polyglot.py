"""Real polyglot repositories: how many files get a verdict. `python bench/polyglot.py`.

Issues 27 and 28 are judged on released polyglot projects (scripts/corpora.toml, group
`polyglot`: fetch them with `scripts/fetch --group polyglot`). For each project this
copies its published tree into a new git repository in a temporary folder (every file
tracked, one commit), runs `orchestrate lint . --format json --exit-zero` in this
process at the repository root, as a user would with what `./run setup` installs
(defaults; reuse off, so every file is judged afresh; plugins from other distributions
switched off), and counts per project and in total:

- `files`: tracked files; `text`: those that are not binary;
- `known`: text files in a language some checker, grammar, exact parser or recipe knows
  (a language one of the loaded checkers declares, an opt-in recipe's only where it
  claimed the file, or a file some checker claimed);
- `verdict`: known files with a `checked` scope that is not policy (the secret scan);
- `claims`: files with a syntax claim (a tree-sitter candidate or a confirmed syntax
  error, or a native checker's own syntax error);
- `exact_no_verdict`: per language with an installed exact parser, its files that got
  no verdict (issue 27 wants none), each with the reason of its scopes;
- `unsupported_known`: files refused as `unsupported` whose language something knows
  (must be none).

It prints a table; `--write` stores bench/polyglot_results.json with the corpus pins,
the tool versions and the per-file lists behind each count, which
tests/test_polyglot_results.py checks against the pins and the issues' figures.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "polyglot_results.json"
GROUP = "polyglot"
#: Where the project is inside a fetched Debian package's tree (`root/`): the folder a
#: user would have checked out. PyPI sdists and npm packages are the project at `src/`.
PROJECT_IN_PACKAGE = {
    "poly-jekyll": "usr/share/rubygems-integration/all/gems/jekyll-4.3.1",
    "poly-client-golang": "usr/share/gocode/src/github.com/prometheus/client_golang",
}
#: Rules by which a native checker reports that the file does not parse.
NATIVE_SYNTAX_RULES = frozenset({"invalid-syntax", "E999", "Lint/Syntax", "syntax", "fatal"})
#: Paths kept per (language, reason) of the files without a verdict.
EXAMPLES = 3
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _corpora() -> Any:
    sys.path.insert(0, str(REPO / "scripts"))
    import corpora  # scripts/corpora.py

    return corpora


def pins() -> dict[str, dict[str, str]]:
    """The manifest's pins of the `polyglot` group, by id (what the JSON is for)."""
    corpora = _corpora()
    return {
        i.id: {
            "kind": i.kind,
            "name": i.name,
            "version": i.version,
            "hash": i.sha256 or i.integrity,
        }
        for i in corpora.load_manifest().values()
        if i.group == GROUP
    }


def project_dir(item_id: str) -> Path:
    """The fetched project's folder; exits saying what to run when it is not fetched."""
    corpora = _corpora()
    item = corpora.load_manifest()[item_id]
    folder = corpora.ready(item, corpora.cache_root())
    if folder is None:
        raise SystemExit(f"{item_id}: not fetched; run scripts/fetch --group {GROUP}")
    if item.kind == "debian-deb":
        return folder / "root" / PROJECT_IN_PACKAGE[item_id]
    return folder / "src"


def stage(src: Path, dest: Path) -> Path:
    """`src` copied to `dest` as a git repository with every file tracked."""
    shutil.copytree(src, dest, symlinks=False)
    env = {**os.environ, **GIT_ENV}
    for argv in (
        ["git", "init", "-q", "-b", "main"],
        ["git", "add", "-A", "-f"],
        ["git", "commit", "-q", "--no-verify", "-m", "released tree"],
    ):
        subprocess.run(argv, cwd=dest, env=env, check=True, capture_output=True)
    return dest


def tracked(repo: Path) -> list[str]:
    """The repository's tracked paths."""
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=repo, check=True, capture_output=True
    ).stdout
    return sorted(p for p in out.decode("utf-8", "surrogateescape").split("\0") if p)


def lint(repo: Path) -> dict[str, Any]:
    """The JSON report of `orchestrate lint . --format json --exit-zero` run in `repo`."""
    from orchestrator.cli.main import main

    here = Path.cwd()
    os.chdir(repo)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            main(["lint", ".", "--format", "json", "--exit-zero"])
    finally:
        os.chdir(here)
    return json.loads(out.getvalue())


def known_languages() -> frozenset[str]:
    """Every language a loaded checker (native, fallback grammar, exact parser, recipe)
    declares: a file of one of them must never be `unsupported`. An opt-in recipe's
    languages (`claims_without_config = false`: codespell's prose, which it judges only
    where the project configures it) are left out here: in a project that configures
    it, its files are known because it claimed them (`count`); in one that does not,
    nothing here judges a `.txt` or `.rst`, and `unsupported` says so."""
    from orchestrate_plugins import exact_parsers

    from orchestrator.core import plugin_host

    langs: set[str] = set(exact_parsers.languages())
    for checker in plugin_host.load().checkers():
        recipe = getattr(checker.impl, "recipe", None)
        if recipe is not None and not recipe.claims_without_config:
            continue
        langs.update(checker.languages)
    return frozenset(langs)


def installed_parsers() -> dict[str, str]:
    """Language -> the exact parsers of its files installed here (their program found)."""
    from orchestrate_plugins import exact_parsers

    out: dict[str, list[str]] = defaultdict(list)
    for p in exact_parsers.PARSERS:
        if p.command is None or shutil.which(p.command):
            for lang in p.languages:
                out[lang].append(p.name)
    return {lang: ", ".join(names) for lang, names in out.items()}


def has_installed_parser(repo: Path, path: str, language: str | None) -> bool:
    """Whether the file's own exact parser (the table's first entry that takes it, as
    the product picks it) is installed here."""
    from orchestrate_plugins import exact_parsers

    try:
        head = (repo / path).read_bytes()[:4096]
    except OSError:
        head = b""
    p = exact_parsers.parser_for(language, path, head)
    return p is not None and (p.command is None or shutil.which(p.command) is not None)


def is_syntax_claim(f: dict[str, Any]) -> bool:
    """A finding that says the file may not parse: a candidate, a confirmed syntax error,
    or a native checker's parse error."""
    rule = str(f.get("rule") or "")
    return bool(f.get("candidate")) or rule.startswith("syntax/") or rule in NATIVE_SYNTAX_RULES


def count(
    report: dict[str, Any], paths: list[str], known: frozenset[str], repo: Path
) -> dict[str, Any]:
    """The figures of one project from its report and its tracked paths."""
    scopes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for s in report["scopes"]:
        scopes[s["path"]].append(s)
    claims = {f["path"] for f in report["findings"] if is_syntax_claim(f)}
    files = text = knows = verdict = 0
    per_lang: dict[str, Counter[str]] = defaultdict(Counter)
    exact_missing: dict[str, list[list[str]]] = defaultdict(list)
    unsupported_known: list[list[str]] = []
    no_verdict: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    not_in_report: list[str] = []
    for path in paths:
        files += 1
        mine = scopes.get(path, [])
        if not mine:
            not_in_report.append(path)
            continue
        own = [s for s in mine if s.get("tier") != "policy"]
        if any(
            s["checker"] == "orchestrate"
            and s["status"] == "not_run"
            and (s.get("reason") or "").startswith("binary file")
            for s in own
        ):
            continue
        text += 1
        language = next((s.get("language") for s in own if s.get("language")), None)
        claimed = any(s["checker"] != "orchestrate" for s in own)
        if not (claimed or (language and language in known)):
            continue
        knows += 1
        lang = language or "(none)"
        per_lang[lang]["known"] += 1
        got = any(s["status"] == "checked" for s in own)
        verdict += got
        per_lang[lang]["verdict"] += got
        per_lang[lang]["claims"] += path in claims
        why = "; ".join(
            sorted(
                {
                    f"{s['checker']} {s['status']}: {s.get('reason') or ''}"
                    for s in own
                    if s["status"] != "checked"
                }
            )
        )
        if not got:
            no_verdict[lang][why].append(path)
            if has_installed_parser(repo, path, language):
                exact_missing[lang].append([path, why])
        if any(s["checker"] == "orchestrate" and s["status"] == "unsupported" for s in own):
            unsupported_known.append([path, lang, why])
    return {
        "files": files,
        "text": text,
        "known": knows,
        "verdict": verdict,
        "claims": len(claims),
        "claim_paths": sorted(claims),
        "per_language": {k: dict(v) for k, v in sorted(per_lang.items())},
        "exact_no_verdict": {k: v for k, v in sorted(exact_missing.items())},
        "unsupported_known": unsupported_known,
        "no_verdict": {
            lang: {
                why: {"count": len(ps), "examples": ps[:EXAMPLES]}
                for why, ps in sorted(reasons.items(), key=lambda kv: (-len(kv[1]), kv[0]))
            }
            for lang, reasons in sorted(no_verdict.items())
        },
        "not_in_report": not_in_report,
    }


def tool_versions(reports: list[dict[str, Any]]) -> dict[str, str]:
    """Python, git, orchestrate and every tool the reports name with its version."""
    from importlib import metadata

    out = {
        "python": platform.python_version(),
        "orchestrate-lint": metadata.version("orchestrate-lint"),
        "git": subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip(),
    }
    for report in reports:
        for s in report["scopes"]:
            tool, parser = s.get("tool") or {}, s.get("syntax_parser") or {}
            if tool.get("version"):
                out[s["checker"]] = str(tool["version"])
            if parser.get("version"):
                out[f"exact parser {parser.get('path')}"] = str(parser["version"])
    return dict(sorted(out.items()))


def measure(ids: list[str]) -> dict[str, Any]:
    """Lint each project and count; the whole result (what --write stores)."""
    os.environ["ORCHESTRATE_REUSE"] = "0"
    sys.path.insert(0, str(REPO / "bench"))
    from run_bench import foreign_plugins

    os.environ["ORCHESTRATE_DISABLE_PLUGINS"] = ",".join(foreign_plugins())
    known = known_languages()
    parsers = installed_parsers()
    projects: dict[str, Any] = {}
    reports = []
    with tempfile.TemporaryDirectory(prefix="orchestrate-polyglot-") as tmp:
        for item_id in ids:
            repo = stage(project_dir(item_id), Path(tmp) / item_id)
            report = lint(repo)
            reports.append(report)
            projects[item_id] = count(report, tracked(repo), known, repo)
    keys = ("files", "text", "known", "verdict", "claims")
    total = {k: sum(p[k] for p in projects.values()) for k in keys}
    total["exact_no_verdict"] = sum(
        len(v) for p in projects.values() for v in p["exact_no_verdict"].values()
    )
    total["unsupported_known"] = sum(len(p["unsupported_known"]) for p in projects.values())
    total["not_in_report"] = sum(len(p["not_in_report"]) for p in projects.values())
    return {
        "format": 1,
        "pins": {i: pins()[i] for i in ids},
        "tools": tool_versions(reports),
        "exact_parsers": dict(sorted(parsers.items())),
        "projects": projects,
        "total": total,
    }


def table(result: dict[str, Any]) -> str:
    """The per-project table (markdown)."""
    rows = [
        "| project | files | text | known | verdict | verdict % | syntax claims | claims % "
        "| exact parser, no verdict | unsupported, known |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]

    def pct(a: int, b: int) -> str:
        return f"{a / b:.1%}" if b else "-"

    for name, p in [*result["projects"].items(), ("total", None)]:
        if p is None:
            t = result["total"]
            exact, unsup = t["exact_no_verdict"], t["unsupported_known"]
            p = t
        else:
            exact = sum(len(v) for v in p["exact_no_verdict"].values())
            unsup = len(p["unsupported_known"])
        rows.append(
            f"| {name} | {p['files']} | {p['text']} | {p['known']} | {p['verdict']} "
            f"| {pct(p['verdict'], p['known'])} | {p['claims']} | {pct(p['claims'], p['known'])} "
            f"| {exact} | {unsup} |"
        )
    return "\n".join(rows)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--item", action="append", default=[], help="one project (item id)")
    parser.add_argument("--write", action="store_true", help=f"store {RESULTS.name}")
    args = parser.parse_args(argv)
    ids = args.item or sorted(pins())
    result = measure(ids)
    print(table(result))
    for name, p in result["projects"].items():
        for lang, rows in p["exact_no_verdict"].items():
            print(f"{name}: {len(rows)} {lang} file(s) with an installed exact parser, no verdict")
    if args.write:
        if args.item:
            raise SystemExit("--write stores the whole group: run it without --item")
        tmp = RESULTS.with_suffix(".tmp")
        tmp.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(RESULTS)
        print(f"wrote {RESULTS.relative_to(REPO)}")


if __name__ == "__main__":
    main(sys.argv[1:])
