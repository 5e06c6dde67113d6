"""No file of the repository installs orchestrate by a bare name from the package index
(issue 31, "Installable the way CI installs it").

The name `orchestrate` on the index is another project (its only command is `sigopt`), and
the distribution name `orchestrate-lint` is not published, so anyone could claim it: a
document, comment or example that runs `pip install orchestrate-lint` would install
whatever a stranger uploads. Every install is by repository URL, path or wheel until the
name is registered. This reads every tracked text file.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: An installer command, then (after options) a requirement that is a bare index name of
#: ours (`orchestrate`, `orchestrate-lint`, `orchestrate_lint`, with extras or a version
#: pin), not a path, a wheel file, a URL or a `name @ URL` reference.
_INSTALLER = (
    r"(?:pip3?|python3?\s+-m\s+pip|uv\s+pip|pipx|uv\s+tool|pdm|poetry)\s+(?:install|add|run)"
)
_BARE = re.compile(
    _INSTALLER
    + r"(?:\s+-{1,2}[\w-]+(?:[= ](?!orchestrate)\S+)?)*"  # options, and an option's value
    + r"""\s+["']?orchestrate(?:[-_]lint)?(?:\[[\w,-]+\])?(?:[=<>~!]=?[\w.*]+)?["']?"""
    + r"(?!\s*@)(?=\s|$|&&|;|\))",  # `name @ URL` installs from the URL
    re.IGNORECASE,
)
_UVX = re.compile(r"\buvx\s+orchestrate(?:[-_]lint)?\b(?!\s*@|\S)", re.IGNORECASE)


def bare_installs(text: str) -> list[str]:
    """The lines of `text` that install orchestrate by a bare name from the package index."""
    return [ln.strip() for ln in text.splitlines() if _BARE.search(ln) or _UVX.search(ln)]


@pytest.mark.parametrize(
    "line",
    [
        "pip install orchestrate",
        "pip install orchestrate-lint",
        "pip install -U orchestrate_lint",
        "python -m pip install 'orchestrate-lint[lsp]'",
        "pipx install orchestrate-lint==0.3.0",
        "uv tool install orchestrate-lint",
        "uv pip install --system orchestrate",
        "uvx orchestrate-lint lint .",
        "- run: pip install orchestrate && orchestrate tools install",
    ],
)
def test_a_bare_install_is_found(line: str) -> None:
    assert bare_installs(line) == [line]


@pytest.mark.parametrize(
    "line",
    [
        "pip install dist/orchestrate_lint-0.1.0-py3-none-any.whl",
        'pip install "orchestrate-lint @ git+https://example.org/orchestrate@v1"',
        "pip install git+https://example.org/orchestrate@v1",
        "pip install -e .",
        "pip install -e examples/orchestrate-yamllint",
        "pipx install ./dist/orchestrate_lint-0.1.0-py3-none-any.whl",
        "orchestrate tools install",
        "pip install orchestrate-yamllint-plugin-from-a-path/",
    ],
)
def test_installs_by_path_wheel_or_url_pass(line: str) -> None:
    assert bare_installs(line) == []


#: A link to a package-index page of a name orchestrate does not hold.
_INDEX_PAGE = re.compile(r"pypi\.org/(?:project|simple)/orchestrate(?:[-_]lint)?\b", re.IGNORECASE)


def test_no_tracked_file_installs_orchestrate_by_a_bare_index_name() -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    found = []
    for name in filter(None, listed):
        path = REPO / name.decode()
        if path.name == Path(__file__).name or not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192] or b"orchestrate" not in data:
            continue
        text = data.decode("utf-8", "replace")
        for line in bare_installs(text):
            found.append(f"{name.decode()}: {line}")
        for line in text.splitlines():
            if _INDEX_PAGE.search(line):
                found.append(f"{name.decode()}: links the unclaimed index page: {line.strip()}")
    assert not found, "installs of an unpublished name from the package index:\n" + "\n".join(found)
