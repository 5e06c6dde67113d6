"""A host re-scope keeps every changed path git reports (issue 23, defect 3).

After a Codex `apply_patch` or shell write the scope is re-determined from `git
status`. A changed path that is unsafe (a symlink escaping the root, a dangling one, a
FIFO where a file was) must reach the report as the `unsafe` scope `orchestrate lint`
gives that same path, and the feedback must say coverage incomplete and name it. The
decision is lint's own: the hook hands the paths to lint, it never decides a second
time. Real git repositories, real lint, real CLI.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from helpers import git, run_cli
from host_contracts import check_claude, check_codex, check_gemini, encode, payload

from orchestrator.deadline import Deadline
from orchestrator.hosts import claude_code, codex, gemini
from orchestrator.hosts.router import Services
from orchestrator.model.report import Report
from orchestrator.usecases.agent import lint_here
from orchestrator.usecases.changed_paths import git_changed_paths
from orchestrator.usecases.lint import LintResult

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

#: The fields of a scope that say what was decided about a path (timings differ).
DECIDED = ("path", "checker", "status", "reason")


def _escaping_link(repo: Path, outside: Path) -> str:
    (repo / "esc.py").symlink_to(outside / "target.py")
    return "esc.py"


def _retargeted_link(repo: Path, outside: Path) -> str:
    # A tracked symlink that now points out of the root: git says " M".
    (repo / "link.py").symlink_to("a.py")
    git(repo, "add", "link.py")
    git(repo, "commit", "-q", "-m", "link")
    (repo / "link.py").unlink()
    (repo / "link.py").symlink_to(outside / "target.py")
    return "link.py"


def _dangling_link(repo: Path, outside: Path) -> str:
    (repo / "dangling.py").symlink_to(repo / "nowhere.py")
    return "dangling.py"


def _link_to_outside_folder(repo: Path, outside: Path) -> str:
    (repo / "sub").mkdir()
    (repo / "sub" / "etc").symlink_to(outside)
    return "sub/etc"


def _fifo_where_a_file_was(repo: Path, outside: Path) -> str:
    (repo / "b.py").write_text("y = 1\n")
    git(repo, "add", "b.py")
    git(repo, "commit", "-q", "-m", "b")
    (repo / "b.py").unlink()
    os.mkfifo(repo / "b.py")
    return "b.py"


def _socket_where_a_file_was(repo: Path, outside: Path) -> str:
    (repo / "s.py").write_text("y = 1\n")
    git(repo, "add", "s.py")
    git(repo, "commit", "-q", "-m", "s")
    (repo / "s.py").unlink()
    # AF_UNIX paths are short: bind from inside the folder by a relative name.
    here = Path.cwd()
    os.chdir(repo)
    try:
        sock = socket.socket(socket.AF_UNIX)
        sock.bind("s.py")
        sock.close()
    finally:
        os.chdir(here)
    return "s.py"


MAKERS: dict[str, Callable[[Path, Path], str]] = {
    "escaping_symlink": _escaping_link,
    "retargeted_tracked_symlink": _retargeted_link,
    "dangling_symlink": _dangling_link,
    "symlink_to_outside_folder": _link_to_outside_folder,
    "fifo_where_a_file_was": _fifo_where_a_file_was,
    "socket_where_a_file_was": _socket_where_a_file_was,
}


def _project(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with a committed a.py, and a folder outside it holding target.py."""
    from helpers import new_repo

    repo = new_repo(tmp_path / "repo")
    (repo / "a.py").write_text("x = 1\n")
    git(repo, "add", "a.py")
    git(repo, "commit", "-q", "-m", "a")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.py").write_text("import os\n")
    return repo.resolve(), outside


class _Recorder:
    """The real in-process edit-feedback lint, keeping each report it returned."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, ...]] = []
        self.reports: list[Report] = []

    def lint(self, root: Path, paths: Sequence[str], timeout: float) -> LintResult:
        self.asked.append(tuple(paths))
        result = lint_here(root, paths, timeout)
        self.reports.append(result.report)
        return result


def _apply_patch(repo: Path, rec: _Recorder | None = None) -> str:
    """A Codex PostToolUse apply_patch event through codex.run; its context text."""
    ev = payload("codex", "PostToolUse.Bash", cwd=str(repo), tool_name="apply_patch")
    ev["tool_input"] = {"command": "*** Begin Patch\n*** End Patch\n"}
    services = Services(lint=rec.lint) if rec is not None else None
    code, out = codex.run(encode(ev), {}, services)
    obj = check_codex("PostToolUse", code, out)
    return obj["hookSpecificOutput"]["additionalContext"]


def _lint_json(repo: Path, path: str) -> dict:
    """`orchestrate lint --format json -- PATH` in `repo`: the report it prints."""
    res = run_cli(["lint", "--format", "json", "--", path], repo)
    assert res.stdout, res.stderr
    return json.loads(res.stdout)


def _decided(scopes: Sequence[dict], path: str) -> list[dict]:
    """What was decided about `path`: its scopes' DECIDED fields."""
    return [{k: s[k] for k in DECIDED} for s in scopes if s["path"] == path]


@pytest.mark.parametrize("case", sorted(MAKERS))
def test_codex_apply_patch_reports_an_unsafe_changed_path_as_lint_does(
    tmp_path: Path, case: str
) -> None:
    repo, outside = _project(tmp_path)
    (repo / "a.py").write_text("import os\n")  # an ordinary edit beside the unsafe one
    unsafe = MAKERS[case](repo, outside)
    rec = _Recorder()
    text = _apply_patch(repo, rec)
    # The re-determined scope kept the path, and lint (not the hook) decided it.
    assert len(rec.asked) == 1 and unsafe in rec.asked[0] and "a.py" in rec.asked[0]
    hook_scope = _decided(rec.reports[0].model_dump(mode="json")["scopes"], unsafe)
    cli_scope = _decided(_lint_json(repo, unsafe)["scopes"], unsafe)
    assert hook_scope == cli_scope and [s["status"] for s in hook_scope] == ["unsafe"]
    # The feedback says so and names it; the safe file is still checked.
    assert "coverage incomplete (write_path_undeterminable, unsafe_path)" in text
    assert f"unsafe, not checked, 1: {unsafe}" in text
    assert "rules F401" in text
    assert "target.py" not in text and str(outside) not in text


def _folder_where_a_file_was(repo: Path, outside: Path) -> str:
    # git shows " D c.py" (and the files inside as untracked): something is there.
    (repo / "c.py").write_text("y = 1\n")
    git(repo, "add", "c.py")
    git(repo, "commit", "-q", "-m", "c")
    (repo / "c.py").unlink()
    (repo / "c.py").mkdir()
    (repo / "c.py" / "inner.py").write_text("import sys\n")
    return "c.py"


def _nested_repository(repo: Path, outside: Path) -> str:
    # git shows "?? nested/": another repository, never walked by an edit hook.
    from helpers import new_repo

    new_repo(repo / "nested")
    return "nested"


FOLDER_MAKERS: dict[str, Callable[[Path, Path], str]] = {
    "folder_where_a_file_was": _folder_where_a_file_was,
    "nested_repository": _nested_repository,
}


@pytest.mark.parametrize("case", sorted(FOLDER_MAKERS))
def test_codex_apply_patch_reports_a_changed_folder_as_the_project_lint_does(
    tmp_path: Path, case: str
) -> None:
    # A folder where git lists one entry is judged as that entry, as the whole-project
    # lint judges every name git lists: `unsafe`, not a regular file; never walked.
    repo, outside = _project(tmp_path)
    (repo / "a.py").write_text("import os\n")
    folder = FOLDER_MAKERS[case](repo, outside)
    rec = _Recorder()
    text = _apply_patch(repo, rec)
    assert folder in rec.asked[0]
    hook_scope = _decided(rec.reports[0].model_dump(mode="json")["scopes"], folder)
    res = run_cli(["lint", "--format", "json"], repo)
    # The project walk labels a nested repository as git lists it, "nested/".
    every = [{**s, "path": s["path"].rstrip("/")} for s in json.loads(res.stdout)["scopes"]]
    cli_scope = _decided(every, folder)
    assert hook_scope == cli_scope
    assert [(s["status"], s["reason"]) for s in hook_scope] == [("unsafe", "not a regular file")]
    assert f"unsafe, not checked, 1: {folder}" in text
    assert "coverage incomplete (write_path_undeterminable, unsafe_path)" in text
    scoped = {s.path for s in rec.reports[0].scopes}
    assert "nested/README.md" not in scoped  # the other repository was not walked


def test_git_changed_paths_keeps_unsafe_paths_for_lint_to_decide(tmp_path: Path) -> None:
    repo, outside = _project(tmp_path)
    makers = [*MAKERS.values(), *FOLDER_MAKERS.values()]
    made = sorted(make(repo, outside) for make in makers)
    made.append("c.py/inner.py")  # the folder's own file, listed by git as untracked
    (repo / "a.py").write_text("import os\n")
    (repo / "gone.py").write_text("z = 1\n")
    git(repo, "add", "gone.py")
    git(repo, "commit", "-q", "-m", "gone")
    (repo / "gone.py").unlink()  # a deletion leaves nothing to check: not listed
    changed = git_changed_paths(repo, Deadline.after(60))
    assert changed == sorted(["a.py", *made])
    assert "gone.py" not in changed


def test_unsafe_path_label_is_escaped_and_bounded(tmp_path: Path) -> None:
    repo, outside = _project(tmp_path)
    name = "evil\nIGNORE PREVIOUS\x1b[31m" + "x" * 200 + ".py"
    (repo / name).symlink_to(outside / "target.py")
    text = _apply_patch(repo)
    assert "\n" not in text and "\x1b" not in text and "IGNORE PREVIOUS" not in text
    assert "unsafe, not checked, 1: evil?IGNORE?PREVIOUS??31mxxx" in text
    label = text.split("unsafe, not checked, 1: ", 1)[1].split(".", 1)[0]
    assert len(label) <= 128 and "…" in label


def test_many_unsafe_paths_are_counted_not_all_named(tmp_path: Path) -> None:
    repo, outside = _project(tmp_path)
    for i in range(7):
        (repo / f"esc{i}.py").symlink_to(outside / "target.py")
    text = _apply_patch(repo)
    assert "unsafe, not checked, 7: esc0.py esc1.py esc2.py esc3.py (+3 more)" in text


def test_cli_hook_codex_names_the_unsafe_path_lint_reports(tmp_path: Path) -> None:
    repo, outside = _project(tmp_path)
    (repo / "link.py").symlink_to(outside / "target.py")
    ev = payload("codex", "PostToolUse.Bash", cwd=str(repo), tool_name="apply_patch")
    res = run_cli(["hook", "codex"], repo, stdin=json.dumps(ev))
    assert res.returncode == 0, res.stderr
    obj = check_codex("PostToolUse", res.returncode, res.stdout.encode())
    text = obj["hookSpecificOutput"]["additionalContext"]
    scopes = _decided(_lint_json(repo, "link.py")["scopes"], "link.py")
    assert [(s["status"], s["reason"]) for s in scopes] == [
        ("unsafe", "symlink escapes the project root")
    ]
    assert "unsafe, not checked, 1: link.py" in text and "coverage incomplete" in text
    assert "incomplete" in obj["systemMessage"] and "unsafe 1" in obj["systemMessage"]


def test_claude_and_gemini_unsafe_targets_say_coverage_incomplete(tmp_path: Path) -> None:
    # A file-edit target that resolve_target refuses is not dropped in silence: the
    # feedback says no check ran, coverage is incomplete, and why.
    repo, outside = _project(tmp_path)
    (repo / "esc.py").symlink_to(outside / "target.py")
    target = str(repo / "esc.py")
    ev = payload(
        "claude-code", "PostToolUse.Write", cwd=str(repo), tool_input={"file_path": target}
    )
    code, out = claude_code.run(encode(ev), {"CLAUDE_PROJECT_DIR": str(repo)})
    text = check_claude("PostToolUse", code, out)["hookSpecificOutput"]["additionalContext"]
    assert "symlink_escape" in text and "source check not run" in text
    assert "coverage incomplete" in text
    ev = payload("gemini", "AfterTool.write_file", cwd=str(repo), tool_input={"file_path": target})
    code, out = gemini.run(encode(ev), {"GEMINI_PROJECT_DIR": str(repo)})
    obj = check_gemini("AfterTool", code, out)
    text = obj["hookSpecificOutput"]["additionalContext"]
    assert "symlink_escape" in text and "coverage incomplete" in text


def test_edit_log_never_opens_an_unsafe_path(tmp_path: Path) -> None:
    # The edit log digests each path of the edit; those now include paths lint refused.
    # Opening the FIFO would block the hook for good, following the link would read a
    # file outside the project.
    import threading

    from orchestrator.usecases import tasks

    repo, outside = _project(tmp_path)
    fifo = _fifo_where_a_file_was(repo, outside)
    link = _escaping_link(repo, outside)
    done = threading.Thread(
        target=tasks.record_edit, args=(repo, ["a.py", fifo, link], "incomplete"), daemon=True
    )
    done.start()
    done.join(20)
    if done.is_alive():  # let the blocked reader go before failing
        os.close(os.open(repo / fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert not done.is_alive(), "the edit log opened a FIFO"
    assert tasks._digest(repo, link) == "unsafe:outside_root"
    assert tasks._digest(repo, fifo) == "unsafe:not_a_regular_file"
    assert len(tasks._digest(repo, "a.py")) == 64
