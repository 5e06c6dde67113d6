"""The pre-tool gate judges the surface a shell command will really have, in the
repository it really acts on, or refuses it; it never reassures about a surface it did
not judge. Real git repositories, the real strict gate (Ruff and the secret scan)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from helpers import git, new_repo
from shell_gate_support import BENIGN, DELIVERIES, ISSUE_SPELLINGS, make_project, repo_state

from orchestrator.decisions.findings import is_blocking
from orchestrator.hosts import claude_code, codex, gemini
from orchestrator.hosts.events import Kind, RouterEvent
from orchestrator.hosts.router import RouteResult, Services, route
from orchestrator.model.report import Finding, Report, ScanInfo
from orchestrator.render import agent_labels

REASSURING = re.compile(r"\b(allow|not_applicable)\b")


@pytest.fixture(scope="module")
def dirty(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("dirty"), dirty=True).resolve()


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("clean"), dirty=False).resolve()


def shell(root: Path, command: object, cwd: Path | None = None) -> RouteResult:
    return route(RouterEvent(Kind.SHELL_COMMAND, root, command=command, shell_cwd=cwd or root))


def secret_rules(res: RouteResult) -> set[str]:
    assert res.report is not None
    return {f.rule for f in res.report.findings if is_blocking(f) and f.rule.startswith("secret-")}


@pytest.mark.parametrize("command", ISSUE_SPELLINGS)
def test_issue_spellings_are_judged_on_the_surface_they_commit(dirty: Path, command: str) -> None:
    # The start repository's index is clean: judging it would have allowed the commit.
    before = repo_state(dirty)
    res = shell(dirty, command)
    assert res.block and res.gate == "deny", res.context
    assert secret_rules(res) >= {"secret-aws-access-key-id"}, res.context
    assert "strict commit gate: deny" in res.context and not REASSURING.search(res.context)
    assert repo_state(dirty) == before  # no index, ref or object of the user's was written


@pytest.mark.parametrize("command", DELIVERIES)
def test_each_delivery_of_the_key_pair_is_refused(dirty: Path, command: str) -> None:
    res = shell(dirty, command)
    assert res.block, res.context
    assert not REASSURING.search(res.context + res.message), res.context
    if res.report is not None:  # judged: on the surface that holds the key pair
        assert secret_rules(res), res.context
    else:
        assert "nothing was judged" in res.context


@pytest.mark.parametrize("command", [c for c in DELIVERIES if ";" not in c])
def test_the_same_deliveries_of_clean_content_pass(clean: Path, command: str) -> None:
    res = shell(clean, command)
    assert not res.block, res.context
    assert res.report is not None and res.gate == "allow", res.context


@pytest.mark.parametrize("command", BENIGN)
def test_benign_commands_pass_untouched(dirty: Path, command: str) -> None:
    res = shell(dirty, command)
    assert res.action == "ignored" and not res.block and res.context == ""


@pytest.mark.parametrize(
    "command",
    [
        "git fetch origin",
        "git reset --hard HEAD",
        "git branch feature",
        "git stash",
        "git stash pop",
    ],
)
def test_ordinary_ref_and_stash_commands_pass_untouched(dirty: Path, command: str) -> None:
    res = shell(dirty, command)
    assert res.action == "ignored" and not res.block and res.context == ""


def test_the_shell_start_folder_is_the_events_cwd(dirty: Path) -> None:
    # The agent's shell sits in app/ (its cwd), the project root is the repository top.
    res = shell(dirty, "git add settings.py && git commit -m x", cwd=dirty / "app")
    assert res.block and secret_rules(res), res.context


def test_a_staging_step_that_would_fail_is_refused(clean: Path) -> None:
    res = shell(clean, "git add no-such-file.py && git commit -m x")
    assert res.block and res.report is None
    assert "its own staging step fails" in res.context and not REASSURING.search(res.context)


def test_a_move_is_never_replayed_and_is_refused(clean: Path) -> None:
    before = repo_state(clean)
    res = shell(clean, "git mv app/settings.py app/other.py && git commit -m x")
    assert res.block and res.report is None, res.context
    assert (clean / "app" / "settings.py").is_file() and repo_state(clean) == before


@pytest.mark.parametrize(
    "command",
    [
        "git push origin HEAD:refs/heads/release",
        "git push origin main:other",
        "git push --all",
        "git push --tags",
        "git push elsewhere main",
        "git push origin main other",
    ],
)
def test_a_push_of_anything_but_the_current_branch_is_refused(clean: Path, command: str) -> None:
    res = shell(clean, command)
    assert res.block and res.report is None, res.context
    assert "nothing was judged" in res.context and "push" in res.context


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("git commit --no-verify -m x", "--no-verify"),
        ("git -c core.hooksPath=/dev/null commit -m x", "hooks"),
        ("git config core.hooksPath .nohooks", "hooks"),
        ("git config --global core.hooksPath /tmp/h", "hooks"),
        ("git update-ref refs/remotes/origin/main HEAD", "remote-tracking"),
        ("echo exit 0 > .git/hooks/pre-commit", ".git"),
        ("cp /tmp/x orchestrate.toml", "configuration"),
        ("git commit-tree HEAD^{tree} -m x", "cannot determine"),
        ("git submodule foreach git commit -m x", "cannot determine"),
        ("git submodule foreach --recursive git push origin main", "cannot determine"),
        ("git fetch origin main:refs/heads/main", "branches, tags or replace refs"),
        ("git replace HEAD HEAD~1", "branches, tags or replace refs"),
        ("git reset --soft stash@{0}", "branches, tags or replace refs"),
        ("git checkout -b feature stash@{0}", "branches, tags or replace refs"),
        ("git stash branch feature", "branches, tags or replace refs"),
        ("git merge --no-edit feature", "cannot determine"),
        ("git rebase --exec 'git commit --amend' main", "cannot determine"),
        ("git commit -m x && git push", "several"),
        ('eval "git commit -m x"', "cannot determine"),
        ("git commit -m 'unbalanced", "cannot determine"),
        ("git commit -m x \x00", "cannot determine"),
        ("git commit -m " + "x" * (65 * 1024), "cannot determine"),
    ],
)
def test_bypasses_and_unreadable_commands_are_refused(
    clean: Path, command: str, words: str
) -> None:
    res = shell(clean, command)
    assert res.block and res.report is None, res.context
    assert words in res.context and "nothing was judged" in res.context
    assert not REASSURING.search(res.context + res.message)
    assert "unbalanced" not in res.context and "xxxx" not in res.context  # never echoed


def test_codex_argv_list_is_read_as_argv(dirty: Path, clean: Path) -> None:
    for root, blocked in ((dirty, True), (clean, False)):
        ev = {
            "hook_event_name": "PreToolUse",
            "tool_name": "shell",
            "cwd": str(root),
            "tool_input": {"command": ["bash", "-lc", "git commit -am x"]},
        }
        _, out = codex.run(json.dumps(ev).encode())
        obj = json.loads(out)
        assert ("hookSpecificOutput" in obj) is blocked, obj
        if blocked:
            assert "secret-aws" in obj["hookSpecificOutput"]["permissionDecisionReason"]


def test_a_command_field_that_is_not_text_is_refused(clean: Path) -> None:
    ev = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "cwd": str(clean),
        "tool_input": {"command": {"git": "commit"}},
    }
    _, out = claude_code.run(json.dumps(ev).encode())
    hso = json.loads(out)["hookSpecificOutput"]
    assert (
        hso["permissionDecision"] == "deny"
        and "cannot determine" in hso["permissionDecisionReason"]
    )


# --- file-edit tools aimed at protected places ---------------------------------------


def _edit_events(root: Path, path: str) -> list[tuple[str, bytes]]:
    claude = {"hook_event_name": "PreToolUse", "tool_name": "Write"}
    cx = {"hook_event_name": "PreToolUse", "tool_name": "Edit"}
    gem = {"hook_event_name": "BeforeTool", "tool_name": "write_file"}
    out = []
    for host, obj in (("claude-code", claude), ("codex", cx), ("gemini", gem)):
        obj |= {"cwd": str(root), "tool_input": {"file_path": path, "content": "x"}}
        out.append((host, json.dumps(obj).encode()))
    return out


def _refused(host: str, out: bytes) -> str | None:
    obj = json.loads(out)
    if host == "gemini":
        return obj.get("reason") if obj.get("decision") == "deny" else None
    hso = obj.get("hookSpecificOutput", {})
    return hso.get("permissionDecisionReason") if hso.get("permissionDecision") == "deny" else None


RUNNERS = {"claude-code": claude_code.run, "codex": codex.run, "gemini": gemini.run}


@pytest.mark.parametrize(
    "rel",
    [
        ".git/hooks/pre-commit",
        ".git/config",
        ".GIT/config",
        "sub/../.git/info/exclude",
        ".githooks/pre-commit",
        "orchestrate.toml",
        "app/orchestrate.toml",
        ".orchestrate/tasks/x.json",
        ".orchestrate-secrets-allow",
        "linked-git/config",
    ],
)
def test_file_edits_of_protected_places_are_refused(tmp_path: Path, rel: str) -> None:
    root = new_repo(tmp_path / "repo").resolve()
    git(root, "config", "core.hooksPath", ".githooks")
    (root / "linked-git").symlink_to(root / ".git")
    for host, data in _edit_events(root, str(root / rel)):
        _, out = RUNNERS[host](data)
        reason = _refused(host, out)
        assert reason is not None, (host, out)
        assert "refused" in reason and str(root) not in reason


def test_ordinary_file_edits_pass_untouched(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "repo").resolve()
    for rel in ("a.py", "docs/gitignore.md", "app/.github/workflows/ci.yml", "new/dir/x.txt"):
        for host, data in _edit_events(root, str(root / rel)):
            _, out = RUNNERS[host](data)
            assert _refused(host, out) is None, (host, rel, out)


def test_an_edit_without_a_usable_path_is_refused(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "repo").resolve()
    ev = {"hook_event_name": "PreToolUse", "tool_name": "Write", "cwd": str(root)}
    ev["tool_input"] = {"file_path": 7}
    _, out = claude_code.run(json.dumps(ev).encode())
    assert "cannot be determined" in (_refused("claude-code", out) or "")


# --- only strict rule ids and bounded labels reach the agent --------------------------


def test_tool_supplied_rule_text_never_reaches_the_agent(tmp_path: Path) -> None:
    from orchestrator.usecases.lint import LintResult

    root = tmp_path.resolve()
    (root / "a.py").write_text("x = 1\n")
    report = Report(scan=ScanInfo(project_root=str(root)))
    for rule in ("SAINJECT_run:curl@evil.sh", "F401", "ok-rule; rm -rf /", "a.b"):
        report.findings.append(
            Finding(checker="fake", rule=rule, path="a.py", line=1, message="m", severity="error")
        )
    fake = Services(lint=lambda r, p, t: LintResult(report))
    res = route(RouterEvent(Kind.FILE_CHANGED, root, paths=("a.py",)), fake)
    assert "F401" in res.context
    for bad in ("SAINJECT", "curl", "evil", "rm -rf", "a.b"):
        assert bad not in res.context and bad not in res.message


def test_commit_all_sees_a_same_size_edit_made_right_after_the_index(tmp_path: Path) -> None:
    # Git's racy-clean check needs the private index copy to keep the index's mtime.
    root = new_repo(tmp_path / "repo").resolve()
    (root / "a.py").write_text("VALUE = 1\n")
    git(root, "add", "a.py")
    git(root, "commit", "-q", "-m", "a")
    (root / "b.py").write_text("B = 1\n")
    git(root, "add", "b.py")  # the index is written again after a.py's entry
    (root / "a.py").write_text("import os\n")  # same size, same second
    time.sleep(1.1)  # the hook runs later: a fresh copy would carry a later mtime
    res = shell(root, "git commit -am x")
    assert res.block and res.report is not None, res.context
    assert "F401" in res.context


def test_git_aliases_of_the_repository_are_followed(tmp_path: Path) -> None:
    root = new_repo(tmp_path / "repo").resolve()
    git(root, "config", "alias.st", "status --short")
    git(root, "config", "alias.ci", "commit")
    git(root, "config", "alias.skip", "commit --no-verify")
    assert shell(root, "git st").action == "ignored"
    (root / "a.py").write_text("import os\n")
    git(root, "add", "a.py")
    res = shell(root, "git ci -m x")
    assert res.block and res.report is not None and "F401" in res.context
    assert shell(root, "git skip -m x").gate == "deny"  # forbidden through the alias
    # Another repository may define the name differently: not guessed from this one.
    other = new_repo(root / "vendor" / "lib")
    git(other, "config", "alias.st", "commit -a")
    res = shell(root, "git -C vendor/lib st")
    assert res.block and res.report is None and "nothing was judged" in res.context


def test_texts_for_hosts_carry_no_control_characters() -> None:
    res = RouteResult("x", context="a\x1b[31mb\nc\u202ed", message="m\r\n").bounded()
    assert res.context == "a?[31mb?c?d" and res.message == "m??"


# ---------------------------------------------------------------- the gate's own policy

POLICY_TEXT = "changes the gate's own policy"


@pytest.mark.parametrize(
    ("files", "command", "label"),
    [
        ({"orchestrate.toml": "[gate]\n"}, "git add orchestrate.toml && git commit -m x", None),
        (
            {".orchestrate-secrets-allow": "leak.py\n"},
            "git add .orchestrate-secrets-allow && git commit -qm x",
            ".orchestrate-secrets-allow",
        ),
        (
            {"pyproject.toml": "[tool.orchestrate]\ndisable_plugins = ['ruff']\n"},
            "git add pyproject.toml && git commit -m x",
            "pyproject.toml [tool.orchestrate]",
        ),
        ({"app/orchestrate.toml": "\n"}, "git add app && git commit -m x", "orchestrate.toml"),
    ],
)
def test_a_commit_changing_the_gates_own_policy_is_denied(
    tmp_path: Path, files: dict[str, str], command: str, label: str | None
) -> None:
    root = make_project(tmp_path, dirty=False).resolve()
    for rel, text in files.items():
        (root / rel).write_text(text)
    before = repo_state(root)
    res = shell(root, command)
    assert res.block and res.gate == "deny", res.context
    assert POLICY_TEXT in res.context and "a person commits that" in res.context
    assert f"({label or 'orchestrate.toml'})" in res.context, res.context
    assert res.reasons == ("policy_change",), res.reasons
    # The only "allow" may be the file name .orchestrate-secrets-allow.
    assert not REASSURING.search(res.context.replace(".orchestrate-secrets-allow", ""))
    assert repo_state(root) == before


def test_a_tracked_policy_file_changed_by_commit_all_is_denied(tmp_path: Path) -> None:
    root = make_project(tmp_path, dirty=False).resolve()
    (root / "orchestrate.toml").write_text("")
    git(root, "add", "orchestrate.toml")
    git(root, "commit", "-qm", "policy")
    (root / "orchestrate.toml").write_text("disable_plugins = ['secrets']\n")
    git(root, "add", "app/settings.py")
    assert shell(root, "git commit -m x").gate == "allow"  # the index holds no change
    for command in ("git commit -am x", "git commit -m x orchestrate.toml"):
        res = shell(root, command)
        assert res.block and POLICY_TEXT in res.context, (command, res.context)


def test_policy_changes_only_in_the_work_tree_are_not_the_commits(tmp_path: Path) -> None:
    # The judged surface decides, not the work tree: an unstaged orchestrate.toml and a
    # [tool.orchestrate] edit outside the index do not make `git commit` a policy change.
    root = make_project(tmp_path, dirty=False).resolve()
    (root / "pyproject.toml").write_text("[tool.orchestrate]\n")
    git(root, "add", "pyproject.toml")
    git(root, "commit", "-qm", "pyproject")
    (root / "pyproject.toml").write_text("[tool.orchestrate]\ndisable_plugins = ['ruff']\n")
    (root / "orchestrate.toml").write_text("")
    git(root, "add", "app/settings.py")
    res = shell(root, "git commit -m x")
    assert not res.block and res.gate == "allow", res.context
    assert "changed" not in res.context


def test_a_changed_checker_config_is_named_in_the_gate_text(tmp_path: Path) -> None:
    root = make_project(tmp_path, dirty=False).resolve()
    (root / "pyproject.toml").write_text("[tool.orchestrate]\n")
    git(root, "add", "pyproject.toml")
    git(root, "commit", "-qm", "pyproject")
    (root / "ruff.toml").write_text("line-length = 100\n")
    (root / "pyproject.toml").write_text("[tool.orchestrate]\n\n[tool.ruff]\nline-length = 90\n")
    res = shell(root, "git add ruff.toml pyproject.toml && git commit -m x")
    assert not res.block and res.gate == "allow", res.context
    assert "judged with a changed pyproject.toml, ruff.toml" in res.context, res.context
    assert "changed pyproject.toml, ruff.toml" in res.message
    assert POLICY_TEXT not in res.context


def test_config_labels_are_a_bounded_fixed_shape() -> None:
    names = ["ruff.toml", "x\x1b[31m.toml", "../../etc", "a" * 60, ".rubocop.yml"]
    assert agent_labels.config_labels(names) == ".rubocop.yml, ruff.toml"
    many = [f"c{i}.toml" for i in range(7)]
    assert agent_labels.config_labels(many).endswith("(+3 more)")


def test_a_commit_whose_policy_changes_cannot_be_read_is_refused(clean: Path) -> None:
    from orchestrator.git.runner import GitError

    def fake_surface_changes(*_: object) -> object:
        raise GitError("git diff-index: timed out")

    svc = Services(surface_changes=fake_surface_changes)  # type: ignore[arg-type]
    ev = RouterEvent(Kind.SHELL_COMMAND, clean, command="git commit -am x", shell_cwd=clean)
    res = route(ev, svc)
    assert res.block and res.report is None and "nothing was judged" in res.context
    assert res.reasons == ("policy_change_undeterminable",) and "timed out" not in res.context


def test_a_push_names_the_config_and_policy_files_it_changes(tmp_path: Path) -> None:
    # A push may carry a person's own policy commit: it is named, the gate judges it.
    root = make_project(tmp_path, dirty=False).resolve()
    (root / "ruff.toml").write_text("line-length = 100\n")
    (root / "orchestrate.toml").write_text("")
    git(root, "add", "ruff.toml", "orchestrate.toml")
    git(root, "commit", "-qm", "config")
    res = shell(root, "git push")
    assert not res.block and res.gate == "allow", res.context
    assert "judged with a changed orchestrate.toml, ruff.toml" in res.context, res.context
    assert POLICY_TEXT not in res.context


def test_the_pre_tool_gate_gets_what_is_left_of_the_events_one_deadline(clean: Path) -> None:
    # The policy read and the gate share one deadline: time the policy read took is not
    # given to the gate again (the hook must answer inside the host's timeout).
    from orchestrator.hosts import budgets as B
    from orchestrator.usecases.pretool import SurfaceChanges

    seen: dict[str, float] = {}

    def slow_surface_changes(_root: Path, _env: object, deadline: object, _kind: str) -> object:
        seen["policy"] = deadline.remaining()  # type: ignore[attr-defined]
        time.sleep(0.5)
        return SurfaceChanges()

    def gate(_kind: str, root: Path, timeout: float, env: object = None) -> Report:
        seen["gate"] = timeout
        return Report(scan=ScanInfo(project_root=str(root)))

    svc = Services(surface_changes=slow_surface_changes, gate=gate)  # type: ignore[arg-type]
    ev = RouterEvent(Kind.SHELL_COMMAND, clean, command="git commit -m x", shell_cwd=clean)
    route(ev, svc)
    assert 0 < seen["policy"] <= B.POLICY_DEADLINE_S
    assert 0 < seen["gate"] <= B.GATE_DEADLINE_S - 0.5, seen


def test_the_callers_environment_never_drops_a_checkers_config_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The pre-tool gate names the checker configs a delivery changes from this list; an
    # environment that disables a plugin (untrusted at a strict entry) must not hide
    # that a commit changes ruff.toml or eslint.config.js.
    from orchestrator.usecases.pretool import checker_config_names

    monkeypatch.setenv("ORCHESTRATE_DISABLE_PLUGINS", "ruff,eslint")
    names = checker_config_names()
    assert {"ruff.toml", ".ruff.toml", "eslint.config.js", ".eslintrc.json"} <= names
