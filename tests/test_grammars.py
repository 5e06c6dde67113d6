"""The grammar manifest claims only what the corpus proves.

A language is qualified exactly when its corpus has >= 3 valid and >= 2 invalid
files, every valid file shows zero reported ERROR/MISSING regions (the checker's own
filter of known false alarms applied) and every invalid file shows at least one. The
test parses every corpus file with the real bundled grammar.
"""

from __future__ import annotations

import time
import tomllib
from importlib import resources
from pathlib import Path

import pytest
from orchestrate_plugins.treesitter_checker import candidate_regions, parse, recovery_regions

from orchestrator.model.languages import SNIFFED, detect, manifest

CORPUS = Path(str(resources.files("orchestrate_grammars").joinpath("corpus")))
MIN_VALID = 3
MIN_INVALID = 2
MAX_LINES = 60
#: The measured false-positive bound a qualified grammar may have (grammars/qualify.py).
MAX_BOUND = 0.02


def _corpus_files(language: str) -> tuple[list[Path], list[Path]]:
    folder = CORPUS / language
    if not folder.is_dir():
        return [], []
    files = sorted(p for p in folder.iterdir() if p.is_file())
    return (
        [p for p in files if p.name.startswith("valid_")],
        [p for p in files if p.name.startswith("invalid_")],
    )


def _regions(grammar: str, path: Path) -> int:
    src = path.read_bytes()
    tree = parse(grammar, src, time.monotonic() + 30)
    found = list(recovery_regions(tree))
    # The walker must agree with tree-sitter's own error flag.
    assert bool(found) == tree.root_node.has_error, path.name
    return len(candidate_regions(grammar, src, tree, time.monotonic() + 30))


def _proven(language: str) -> tuple[bool, list[str]]:
    info = manifest()[language]
    valid, invalid = _corpus_files(language)
    problems = [
        f"{p.name}: recovery nodes in a valid file" for p in valid if _regions(info.grammar, p)
    ]
    problems += [
        f"{p.name}: invalid file parses clean" for p in invalid if not _regions(info.grammar, p)
    ]
    if len(valid) < MIN_VALID or len(invalid) < MIN_INVALID:
        problems.append(f"corpus too small ({len(valid)} valid, {len(invalid)} invalid)")
    return not problems, problems


def _failed_on_real_code(language: str) -> bool:
    """True when grammars/qualify.py measured `language` on real code above the bound."""
    row = _manifest_rows()[language]
    measured = row.get("measured")
    return isinstance(measured, dict) and measured.get("bound", 1.0) > MAX_BOUND


#: How a manifest note says no corpus of real files could be had for a language.
NO_CORPUS = "no real-code corpus: "


def _no_real_corpus(language: str) -> bool:
    """True when the manifest says no corpus of real files exists for `language` here
    (the grammar cannot be measured, so it is not qualified)."""
    return NO_CORPUS in str(_manifest_rows()[language].get("note", ""))


def _manifest_rows() -> dict[str, dict[str, object]]:
    data = tomllib.loads((CORPUS.parent / "manifest.toml").read_text(encoding="utf-8"))
    return {row["language"]: row for row in data["language"]}


@pytest.mark.parametrize("language", sorted(manifest()))
def test_qualified_flag_equals_corpus_proof(language: str) -> None:
    """Qualified exactly when the written corpus proves it and no measurement on real
    code (grammars/qualify.py) put the grammar's false-positive bound above 2%."""
    proven, problems = _proven(language)
    if _failed_on_real_code(language):
        proven, problems = False, [*problems, "measured bound on real code above 2%"]
    elif _no_real_corpus(language):
        proven, problems = False, [*problems, "no corpus of real files to measure it on"]
    claimed = manifest()[language].qualified
    assert claimed == proven, (
        f"{language}: manifest says qualified={claimed}, corpus proves {proven}: {problems}"
    )


def test_at_least_thirty_qualified_including_the_required_ones() -> None:
    qualified = {lang for lang, info in manifest().items() if info.qualified}
    required = {
        "go", "rust", "java", "c", "cpp", "csharp", "typescript", "tsx", "javascript",
        "json", "yaml", "toml", "bash", "lua", "php", "kotlin", "swift", "scala", "css",
        "html", "python", "ruby",
    }  # fmt: skip
    # A language leaves the set only when real code measured it above the bound, or
    # when no real code could be had to measure it; its note says which.
    failed = {lang for lang in manifest() if _failed_on_real_code(lang) or _no_real_corpus(lang)}
    assert required - failed <= qualified, sorted(required - failed - qualified)
    assert len(qualified | failed) >= 30, len(qualified)


def test_every_qualified_language_has_enough_small_corpus_files() -> None:
    for language, info in manifest().items():
        valid, invalid = _corpus_files(language)
        for p in valid + invalid:
            assert len(p.read_bytes().splitlines()) < MAX_LINES, p
        if info.qualified:
            assert len(valid) >= MIN_VALID and len(invalid) >= MIN_INVALID, language


def test_corpus_folders_name_manifest_languages_and_files_follow_the_naming() -> None:
    for folder in CORPUS.iterdir():
        assert folder.name in manifest(), folder.name
        for p in folder.iterdir():
            assert p.name.startswith(("valid_", "invalid_")), p


def _no_network(*args: object, **kwargs: object) -> None:
    raise AssertionError("a grammar tried to reach the network")


def test_every_grammar_loads_offline_and_parses_its_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every manifest grammar loads with the network cut off and parses real source.

    Qualification itself (valid files clean, invalid files with recovery nodes) is proved
    per language by test_qualified_flag_equals_corpus_proof; here every grammar, qualified
    or not, must give a tree for each corpus file of its language, and a qualified
    language's valid files must parse without a reported error.
    """
    import socket

    from tree_sitter_language_pack import get_parser

    monkeypatch.setattr(socket, "socket", _no_network)
    monkeypatch.setattr(socket, "create_connection", _no_network)
    for language, info in manifest().items():
        parser = get_parser(info.grammar)  # type: ignore[arg-type]
        valid, invalid = _corpus_files(language)
        for path in valid + invalid:
            src = path.read_bytes()
            tree = parser.parse(src)
            assert tree.root_node.child_count > 0, f"{language}: {path.name} gave an empty tree"
            if info.qualified and path in valid:
                reported = candidate_regions(info.grammar, src, tree, time.monotonic() + 30)
                assert not reported, f"{language}: {path.name} has errors"


def test_shared_extensions_are_sniffed() -> None:
    """An extension two manifest languages list must be settled by content."""
    owners: dict[str, set[str]] = {}
    for info in manifest().values():
        for ext in info.extensions:
            owners.setdefault(ext, set()).add(info.language)
    shared = {ext for ext, langs in owners.items() if len(langs) > 1}
    assert shared <= set(SNIFFED), sorted(shared - set(SNIFFED))


def test_corpus_files_are_detected_as_their_language_where_the_name_decides() -> None:
    """Files whose extension belongs to their folder's language detect to it."""
    for language, info in manifest().items():
        valid, invalid = _corpus_files(language)
        for p in valid + invalid:
            ext = p.suffix.lower()
            if ext in info.extensions:
                assert detect(p.name, p.read_bytes()) == language, p


def test_unreliable_only_on_unqualified_grammars_with_evidence() -> None:
    """`unreliable` (candidates withheld) is evidence text on an unqualified grammar: a
    qualified grammar's candidates are always reported, and the flag names its proof."""
    marked = {lang: info for lang, info in manifest().items() if info.unreliable}
    assert "powershell" in marked
    for lang, info in marked.items():
        assert not info.qualified, lang
        assert len(info.unreliable) > 80 and "valid" in info.unreliable, lang
