"""The layer contract of pyproject.toml ([tool.importlinter]) holds.

`lint-imports` (import-linter) checks the layers (presenters over use cases over core over
git over the foundation), the absence of circles between sibling packages, that plugins
import only the public API, that the core imports no plugin, and that the presenters
import neither the core nor git themselves; no contract exempts an import
(`ignore_imports`). A broken contract fails
this test with import-linter's own explanation of the offending import chain.

pylint's duplicate-code check (its Symilar engine, in process) runs here too: a block
repeated across modules is a decision or a use case written twice.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
#: The presenters: each parses a request, calls a use case and renders its result.
PRESENTERS = ("orchestrator.cli", "orchestrator.hosts", "orchestrator.lsp", "orchestrator.server")
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _run_lint_imports(config: Path = ROOT / "pyproject.toml") -> subprocess.CompletedProcess[str]:
    """Run the venv's lint-imports with `config`, without writing a cache into the project."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(config)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_import_contracts_are_kept() -> None:
    assert LINT_IMPORTS.exists(), f"{LINT_IMPORTS} missing: install the test extra (.[test])"
    proc = _run_lint_imports()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout, proc.stdout


def test_layer_contract_is_exhaustive() -> None:
    """A new module or package under orchestrator/ must take a place in the layers."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}
    assert contracts["layers"]["type"] == "layers"
    assert contracts["layers"]["exhaustive"] is True


def _contracts(text: str) -> list[dict[str, Any]]:
    return list(tomllib.loads(text)["tool"]["importlinter"]["contracts"])


def test_the_presenters_are_kept_off_core_and_git() -> None:
    """The `adapters` contract: every presenter (cli, hosts with the MCP server, lsp, the
    warm engine's server) imports neither core nor git itself."""
    contracts = {c["id"]: c for c in _contracts(PYPROJECT.read_text(encoding="utf-8"))}
    adapters = contracts["adapters"]
    assert adapters["type"] == "forbidden"
    assert set(adapters["source_modules"]) == set(PRESENTERS)
    assert set(adapters["forbidden_modules"]) == {"orchestrator.core", "orchestrator.git"}


def exempted_imports(text: str) -> dict[str, list[str]]:
    """The `ignore_imports` lines of each import-linter contract in a pyproject text that
    has any (contract id or name -> lines)."""
    return {
        str(c.get("id") or c.get("name")): list(c["ignore_imports"])
        for c in _contracts(text)
        if c.get("ignore_imports")
    }


def test_no_contract_exempts_an_import() -> None:
    """No contract of pyproject.toml lists `ignore_imports`: an import that breaks a
    contract is moved, never exempted."""
    assert exempted_imports(PYPROJECT.read_text(encoding="utf-8")) == {}


def test_an_exemption_would_be_found() -> None:
    """The exemption check is not vacuous: one `ignore_imports` line in any contract is
    reported, by the contract it is in."""
    text = PYPROJECT.read_text(encoding="utf-8").replace(
        'id = "checkers-independent"\n',
        'id = "checkers-independent"\n'
        'ignore_imports = ["orchestrate_plugins.ruff_checker -> orchestrate_plugins._common"]\n',
    )
    assert exempted_imports(text) == {
        "checkers-independent": ["orchestrate_plugins.ruff_checker -> orchestrate_plugins._common"]
    }


def test_a_broken_contract_fails(tmp_path: Path) -> None:
    """The check is not vacuous: a contract today's code breaks makes lint-imports fail."""
    config = tmp_path / "broken.toml"
    config.write_text(
        "[tool.importlinter]\n"
        'root_packages = ["orchestrator"]\n'
        "[[tool.importlinter.contracts]]\n"
        'name = "cli may not use the core"\n'
        'type = "forbidden"\n'
        'source_modules = ["orchestrator.cli"]\n'
        'forbidden_modules = ["orchestrator.core"]\n',
        encoding="utf-8",
    )
    proc = _run_lint_imports(config)
    assert proc.returncode != 0, proc.stdout
    assert "BROKEN" in proc.stdout, proc.stdout


#: Six lines is the smallest block worth sharing; imports, docstrings, comments and
#: signatures repeat by nature and are not counted (pylint's duplicate-code options
#: `--min-similarity-lines=6 --ignore-imports=y --ignore-docstrings=y
#: --ignore-comments=y --ignore-signatures=y`).
MIN_LINES = 6


def _duplicates(files: list[Path]) -> list[str]:
    """The blocks of `MIN_LINES` or more lines repeated across `files`, one line each.

    pylint's duplicate-code checker is its `Symilar` engine, run here in process on the
    same options. Each module is parsed by astroid without its inference transforms:
    the engine reads only where imports and signatures are (plain syntax nodes), and
    the transforms (which import and infer every module named) were most of `pylint`'s
    own run. Inline `# pylint: disable` comments are not honoured (the tree has none).
    """
    from astroid.builder import AstroidBuilder
    from astroid.manager import AstroidManager
    from pylint.checkers.symilar import Symilar

    engine = Symilar(
        min_lines=MIN_LINES,
        ignore_comments=True,
        ignore_docstrings=True,
        ignore_imports=True,
        ignore_signatures=True,
    )
    builder = AstroidBuilder(AstroidManager(), apply_transforms=False)
    for path in files:
        text = path.read_text(encoding="utf-8")
        tree = builder.string_build(text, modname=path.stem, path=str(path))
        engine.append_stream(str(path), io.StringIO(text), tree=tree)
    return [
        f"{count} lines: "
        + ", ".join(f"{ls.name}:{start}-{end}" for ls, start, end in sorted(where))
        for count, where in engine._compute_sims()
    ]


def test_no_duplicate_code() -> None:
    """No block of six or more lines is repeated across orchestrator/ and plugins/."""
    files = sorted(p for top in ("orchestrator", "plugins") for p in (ROOT / top).rglob("*.py"))
    assert len(files) > 100, files  # the tree, not an empty glob
    assert _duplicates(files) == []


def test_the_duplicate_check_finds_a_repeated_block(tmp_path: Path) -> None:
    """Not vacuous: a block of eight lines written in two modules is found (their imports
    are not counted), and a four-line one, or a repeated import list, is not."""
    block = "".join(f"    total = total * {i} + len(items)\n" for i in range(MIN_LINES))
    imports = "".join(f"import m{i}\n" for i in range(MIN_LINES + 2))
    for name in ("a", "b"):
        (tmp_path / f"{name}.py").write_text(
            f"{imports}\n\ndef {name}(items: list) -> int:\n    total = 0\n{block}    return total\n"
        )
    found = _duplicates([tmp_path / "a.py", tmp_path / "b.py"])
    assert len(found) == 1 and found[0].startswith(f"{MIN_LINES + 2} lines"), found
    short = "".join(block.splitlines(keepends=True)[: MIN_LINES - 2])
    for name in ("c", "d"):
        (tmp_path / f"{name}.py").write_text(f"{imports}\n\ndef {name}() -> None:\n{short}")
    assert _duplicates([tmp_path / "c.py", tmp_path / "d.py"]) == []
