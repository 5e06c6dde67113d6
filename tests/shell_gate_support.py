"""Repositories for the pre-tool shell gate tests: the same layout, once holding an
AWS-shaped key pair on every surface a commit or push spelling could reach (while the
start repository's index stays clean), once holding only clean content.

Layout (root = the project the agent works in):
- `app/settings.py` tracked, modified in the work tree (reached by `commit -a`,
  `git add app/settings.py`, `commit app/settings.py`, `cd app && git add ...`);
- `app/new.py` untracked (reached by `git add app/new.py`, `git add app`);
- `vendor/lib`, a repository of its own with `cfg.py` staged (reached by `-C`,
  `GIT_DIR=`/`GIT_WORK_TREE=`, `cd vendor/lib &&`);
- one local commit adding `leak.py` not yet pushed to origin (reached by `git push`).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from helpers import add_remote, git, new_repo

KEY_ID = "AKIA" + "Q7XZ" * 4
SECRET = "abcdEFGHijklMNOPqrst" + "UVWXyz0123456789/+ab"


def _secret_py(name: str) -> str:
    return f'{name}_KEY_ID = "{KEY_ID}"\nAWS_SECRET_ACCESS_KEY = "{SECRET}"\n'


def make_project(base: Path, *, dirty: bool) -> Path:
    """The project at `base/repo` (see the module docstring); `dirty` plants the key
    pair on each reachable surface, else clean Python takes its place."""
    root = new_repo(base / "repo")
    (root / "app").mkdir()
    (root / "app" / "settings.py").write_text("VALUE = 1\n")
    git(root, "add", "app/settings.py")
    git(root, "commit", "-q", "-m", "settings")
    add_remote(root, base / "origin.git")
    git(root, "branch", "-q", "--set-upstream-to=origin/main")
    (root / "leak.py").write_text(_secret_py("PUSHED") if dirty else "PUSHED = 1\n")
    git(root, "add", "leak.py")
    git(root, "commit", "-q", "-m", "unpushed")
    (root / "app" / "settings.py").write_text(_secret_py("AWS") if dirty else "VALUE = 2\n")
    (root / "app" / "new.py").write_text(_secret_py("NEW") if dirty else "NEW = 1\n")
    lib = new_repo(root / "vendor" / "lib")
    (lib / "cfg.py").write_text(_secret_py("LIB") if dirty else "CFG = 1\n")
    git(lib, "add", "cfg.py")
    return root


def repo_state(root: Path) -> tuple[str, ...]:
    """What a pre-tool check must never change: each index, HEAD and the objects."""
    out = []
    for repo in (root, root / "vendor" / "lib"):
        out.append(git(repo, "ls-files", "-s"))
        out.append(git(repo, "rev-parse", "HEAD"))
        objects = subprocess.run(
            ["find", str(repo / ".git" / "objects"), "-type", "f"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        out.append(str(sorted(objects.split())))
    return tuple(out)


#: The five spellings of the issue, each delivering the key pair from a clean index.
ISSUE_SPELLINGS = (
    "git add app/settings.py && git commit -m x",
    "git commit -am x",
    "git -C vendor/lib commit -m x",
    "GIT_DIR=vendor/lib/.git GIT_WORK_TREE=vendor/lib git commit -m x",
    "cd vendor/lib && git commit -m x",
)
#: More deliveries whose real surface holds the key pair in the dirty project.
DELIVERIES = (
    *ISSUE_SPELLINGS,
    "cd app && git add settings.py && git commit -m x",
    "git commit -m x app/settings.py",
    "git commit -m x -- app/settings.py",
    "git add app/new.py; git commit -m x",
    "git stage app && git commit -qm x",
    "git commit --all -m x",
    "git -C vendor/lib commit -qm x",
    "git --git-dir=vendor/lib/.git --work-tree=vendor/lib commit -m x",
    "git push",
    "git push origin main",
    "git push origin HEAD:main",
    "git push -u origin main",
    "git -c alias.ci=commit ci -am x",
)
#: Commands that deliver nothing.
BENIGN = (
    "git status",
    "git status --short",
    "git log --oneline -3",
    "git diff",
    "git diff --cached",
    "git branch",
    "git branch -a",
    "git -C vendor/lib status",
    "git show --stat HEAD",
    "ls -la",
    "echo git commit",
    "git log --grep commit",
)


def claude_pre_tool(repo: Path, command: str, extra: dict[str, str] | None = None) -> None:
    """Answer Claude Code's PreToolUse event for a Bash `command` in `repo`, in process
    (the host guard as the installed hook runs it), with `extra` in its environment."""
    import io
    import json
    import os
    import tempfile

    from orchestrator.hosts import guard

    event = {
        "session_id": "s",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    env = {"PATH": os.environ["PATH"], "CLAUDE_PROJECT_DIR": str(repo), "HOME": str(repo)}
    env.update(extra or {})
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        stream = io.BufferedReader(io.BytesIO(json.dumps(event).encode()))  # type: ignore[arg-type]
        guard.answer("claude-code", stream, env, out_fd=out.fileno(), err_fd=err.fileno())
