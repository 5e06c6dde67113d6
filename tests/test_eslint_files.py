"""`eslint_files`: legacy ESLint's own enumeration of `eslint .`, asked in one process."""

from __future__ import annotations

import json
import os
from pathlib import Path

from helpers import eslint_path
from orchestrate_plugins.eslint_files import (
    IGNORED,
    LINT,
    NOT_TARGET,
    Walk,
    legacy_verdicts,
)

from orchestrator.deadline import Deadline


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ESLINT_")}
    return dict(env, ESLINT_USE_FLAT_CONFIG="false")


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def test_verdicts_follow_the_walk_of_eslint_dot(tmp_path: Path) -> None:
    rc = {
        "root": True,
        "ignorePatterns": ["gen/", "*.d.ts"],
        "overrides": [{"files": ["*.ts"], "rules": {}}],
    }
    _write(
        tmp_path,
        {
            ".eslintrc.json": json.dumps(rc),
            "a.js": "1;\n",
            "b.ts": "1;\n",
            "c.d.ts": "1;\n",
            "d.cjs": "1;\n",
            "gen/e.js": "1;\n",
            "node_modules/x/f.js": "1;\n",
        },
    )
    names = ["a.js", "b.ts", "c.d.ts", "d.cjs", "gen/e.js", "node_modules/x/f.js", "new.js"]
    files = tuple(tmp_path / n for n in names)
    [answer] = legacy_verdicts(
        eslint_path(), [Walk(tmp_path, (), files)], env=_env(), deadline=Deadline.after(60)
    )
    assert isinstance(answer, dict)
    got = {p.relative_to(tmp_path).as_posix(): v for p, v in answer.items()}
    # new.js is not on disk (a staged blob): ESLint's ignore answer for its path decides.
    assert got == {
        "a.js": LINT,
        "b.ts": LINT,
        "c.d.ts": IGNORED,
        "d.cjs": NOT_TARGET,
        "gen/e.js": IGNORED,
        "node_modules/x/f.js": IGNORED,
        "new.js": LINT,
    }


def test_ext_flag_and_two_walks_in_one_request(tmp_path: Path) -> None:
    for sub in ("one", "two"):
        _write(tmp_path / sub, {".eslintrc.json": '{"root": true}', "a.cjs": "1;\n"})
    walks = [
        Walk(tmp_path / "one", (".cjs",), (tmp_path / "one/a.cjs",)),
        Walk(tmp_path / "two", (), (tmp_path / "two/a.cjs",)),
    ]
    one, two = legacy_verdicts(eslint_path(), walks, env=_env(), deadline=Deadline.after(60))
    assert one == {tmp_path / "one/a.cjs": LINT}
    assert two == {tmp_path / "two/a.cjs": NOT_TARGET}


def test_an_unreadable_config_is_that_walk_s_reason(tmp_path: Path) -> None:
    _write(tmp_path, {".eslintrc.json": '{"root": true, "extends": "plugin:nope/all"}', "a.js": ""})
    [answer] = legacy_verdicts(
        eslint_path(),
        [Walk(tmp_path, (), (tmp_path / "a.js",))],
        env=_env(),
        deadline=Deadline.after(60),
    )
    assert isinstance(answer, str) and "nope" in answer


def test_a_tool_that_is_no_eslint_package_cannot_be_asked(tmp_path: Path) -> None:
    fake_tool = tmp_path / "fake-eslint"
    fake_tool.write_text("#!/bin/sh\nexit 0\n")
    [answer] = legacy_verdicts(
        str(fake_tool),
        [Walk(tmp_path, (), (tmp_path / "a.js",))],
        env=_env(),
        deadline=Deadline.after(60),
    )
    assert isinstance(answer, str) and "not an ESLint package" in answer
