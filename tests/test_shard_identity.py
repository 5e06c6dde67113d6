"""Shards carry the revision and the settings they judged (issue 24, class 11).

Written as an adversary: two commits with the same file list, each sharded, and a
merge of shard 1 of one with shard 2 of the other said "complete, no findings" though
both commits fail a full lint. Every spelling of "same list, other contents" (the
difference in either shard's share, in a governing config file, in orchestrate's own
settings, a file's bytes made equal to the other's but in a third file) is merged
here and refused; shards of one revision still merge complete; a shard's report from
before the identity (schema 1.0) is refused with the reason. In process, real Ruff.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.core.engine import LintRequest, run_lint
from orchestrator.core.selection import Shard, shard_of
from orchestrator.errors import UsageError
from orchestrator.model.report import Report
from orchestrator.usecases.merge import load_shard_report, merge, merge_reports

N = 2


def _names() -> tuple[str, str]:
    """Two file names that fall in different shares of N = 2."""
    names = [f"m{i}.py" for i in range(40)]
    one = next(n for n in names if shard_of(n, N) == 1)
    two = next(n for n in names if shard_of(n, N) == 2)
    return one, two


def _shard(root: Path, index: int, files: dict[str, str]) -> Report:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    req = LintRequest(project_root=root, cwd=root, paths=["."], shard=Shard(index, N))
    return run_lint(req)


ONE, TWO = _names()
CLEAN = {ONE: "x = 1\n", TWO: "y = 2\n"}
#: The other revision: the same file list, other bytes (each fails a full lint).
OTHERS = [
    pytest.param({ONE: "import os\n"}, id="first-share-differs"),
    pytest.param({TWO: "import os\n"}, id="second-share-differs"),
    pytest.param({ONE: "import os\n", TWO: "import sys\n"}, id="both-differ"),
    pytest.param({ONE: "y = 2\n", TWO: "x = 1\n"}, id="contents-swapped"),
    pytest.param({"ruff.toml": "[lint]\nselect = ['ALL']\n"}, id="governing-config"),
    pytest.param({"orchestrate.toml": "disable_plugins = ['secrets']\n"}, id="own-settings"),
]


@pytest.mark.parametrize("other", OTHERS)
@pytest.mark.parametrize("which", [1, 2])
def test_shards_of_two_revisions_with_one_file_list_never_merge(
    tmp_path: Path, homes: dict[str, str], other: dict[str, str], which: int
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    base = {**CLEAN, "ruff.toml": "", "orchestrate.toml": ""}
    a.mkdir()
    b.mkdir()
    # Shard `which` from revision A, the other share from revision B (same file names).
    first = _shard(a, which, base)
    second = _shard(b, 3 - which, {**base, **other})
    assert first.shards[0].files_digest == second.shards[0].files_digest, "same file list"
    with pytest.raises(UsageError, match="they are not one run"):
        merge_reports([first, second])


def test_shards_of_one_revision_still_merge_complete(tmp_path: Path, homes: dict[str, str]) -> None:
    root = tmp_path / "r"
    root.mkdir()
    files = {ONE: "import os\n", TWO: "y = 2\n"}
    merged = merge_reports([_shard(root, 1, files), _shard(root, 2, files)])
    assert merged.coverage.complete
    assert [f.rule for f in merged.findings] == ["F401"]


def test_a_shard_report_without_the_identity_is_refused_with_the_reason(
    tmp_path: Path, homes: dict[str, str]
) -> None:
    root = tmp_path / "r"
    root.mkdir()
    data = json.loads(_shard(root, 1, CLEAN).model_dump_json())
    data["schema_version"] = "1.0"
    for shard in data["shards"]:
        del shard["tree_digest"], shard["config_digest"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    with pytest.raises(UsageError, match=r"before schema 1\.1.*make every shard again"):
        load_shard_report(old)
    with pytest.raises(UsageError):
        merge([old])
