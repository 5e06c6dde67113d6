"""The commands of README.md and docs/*.md, run as written (issue 32).

Every fenced block is read. A command block (`sh`, `bash`, `shell`, `console`, or an
unlabelled block whose lines start with a program) is split into commands (comments
dropped, `\\` and `|` continuations joined). Each command is either run by one of the
scenarios below, checked as a usage synopsis against `--help`, or skipped with its
reason in SKIPPED, because it cannot run offline or needs a person. The first test
keeps the three lists in step with the docs: a new command in the docs must be given a
place, and an entry whose command left the docs must go.

Placeholders a reader fills in (REPORT, ID, RUN_ID, FILE, S, KIND) are filled from the
previous step's output, as a reader would; each substitution is written next to it.
A command passes when it exits with a code its own docs call normal (0 or 1, 3 where
named), never 2 (usage error) or 4 (internal fault), and prints no traceback.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import REPO, VENV_BIN, git, new_repo

from orchestrator import managed_tools

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SHELL_INFOS = {"sh", "bash", "shell", "console"}
#: What an unlabelled command block starts with.
PROGRAMS = ("orchestrate ", "./run ", "scripts/", "python ", ".venv/", "npm ", "cd ", "pip ")
#: Fenced blocks that are not commands, by info string: configuration and file formats
#: (each is a file a person writes into a project or an editor, not a command).
NOT_COMMANDS = {
    "yaml": "a configuration file (pre-commit, GitHub Actions): a person adds it",
    "toml": "a configuration file (orchestrate.toml, pyproject.toml, Helix)",
    "json": "a configuration or record format (VS Code, Zed, a task record)",
    "lua": "editor set-up (Neovim): needs a person and an editor (tests/test_editor_configs.py runs the Neovim 0.7 block headless)",
}

#: Commands that are not run, each with the reason.
SKIPPED: dict[str, str] = {
    "./run demo": "installs everything first (pip and npm from the registries: network)",
    "./run test": "runs the whole test suite, this test included",
    "python -m build": "builds in an isolated environment it installs from the registry (network); tests/test_wheel_install.py builds the wheel",
    "pip install dist/orchestrate_lint-*.whl": "needs the wheel `python -m build` makes; tests/test_wheel_install.py installs it",
    'pip install "$(ls dist/orchestrate_lint-*.whl)[lsp,mcp]"': "needs the wheel `python -m build` makes; tests/test_wheel_install.py installs it with the `lsp` extra",
    "scripts/fetch": "downloads the pinned corpora and tools (network)",
    "scripts/fetch --only qs": "downloads a corpus (network)",
    "scripts/fetch --group qualify": "downloads Debian packages (network)",
    "scripts/fetch --group bench": "downloads real projects (network)",
    "scripts/fetch --group polyglot": "downloads released polyglot projects (network)",
    "python grammars/qualify.py": "fetches the pinned corpus (network), then measures for minutes",
    "python grammars/qualify.py --only go": "fetches the Go corpus (network)",
    "python grammars/qualify.py --no-fetch --report /tmp/qualify.json": "measures the fetched qualification corpus (scripts/fetch --group qualify, network) for minutes",
    "python grammars/rss_measure.py --write": "fetches the default and qualify corpora (network), then parses for about 20 s",
    '.venv/bin/pip install -e ".[test]"': "installs from the registry (network); ./run setup does it",
    "npm ci --prefix tools/hosts": "installs the agent hosts from the npm registry (network)",
    ".venv/bin/pytest -m hosts_e2e -n 2": "drives the real agent hosts (their npm installs, minutes)",
    ".venv/bin/pytest tests/hosts_e2e/test_codex.py": "drives the real Codex host",
    '.venv/bin/pytest -m "not hosts_e2e"': "the whole test suite, this test included",
    "cd tests && ../.venv/bin/python -m hosts_e2e.servers anthropic --port 18089 --script turns.json --log-dir /tmp/reqs": "a fake model server that serves until stopped, for a host a person drives",
    "inotifywait -m -r -e close_write --format '%w%f' src | while IFS= read -r f; do orchestrate lint --feedback \"$f\"; done": "watches for edits until stopped: needs a person editing (and inotify-tools)",
    "ls *.py | entr -p orchestrate lint --feedback /_": "waits for edits until stopped: needs a person editing (and entr)",
}

#: Usage synopses (`[OPTION]` groups, `a|b` choices): every option and choice in one
#: is checked against the command's `--help`, not run.
SYNOPSES = {
    "orchestrate trust [--list | --revoke] [--root DIR]",
    "orchestrate lint [PATHS...] [--format human|json|sarif|github|concise|jsonl|rdjson] [--output PATH] [--timeout SECONDS] [--jobs N] [--require native|syntax|complete] [--only CHECKER] [--fail-on error|warning|candidate] [--exit-zero] [--feedback] [--from-hook] [--root DIR] [--shard I/N] [--fix | --diff] [--unsafe-fixes] [--since REV | --new-from-rev REV] [--no-baseline] [--statistics]",
}

#: The commands the scenarios run, as the docs write them.
TOOLS = ["orchestrate tools install", "orchestrate tools status"]
CI = [
    "orchestrate lint --shard 2/4 --format json --output shard-2.json",
    "orchestrate report merge shard-*.json --format sarif --output orchestrate.sarif",
]
HOSTS = ["orchestrate hook claude-code"]
FETCH = ["scripts/fetch --list"]
HYGIENE = [
    "orchestrate check",
    "orchestrate clean --dry-run",
    "orchestrate clean",
    "orchestrate clean REPORT --approve ID …",
    "orchestrate clean --approve-all-confirm",
    "orchestrate clean --undo RUN_ID",
    "orchestrate report validate FILE",
]
TASKS = [
    "orchestrate task list [--all] [--format json]",
    "orchestrate task show ID [--show-message]",
    "orchestrate task verify ID [--timeout S]",
    "orchestrate task close ID --resolution KIND",
    "orchestrate next [--format json]",
]
RUN = [*TOOLS, *CI, *HOSTS, *FETCH, *HYGIENE, *TASKS]

_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```", re.S | re.M)
_COMMENT = re.compile(r"(^|\s+)#(\s.*)?$")


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    info: str
    body: str


def blocks() -> list[Block]:
    """Every fenced block of the docs."""
    out = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in _FENCE.finditer(text):
            line = text[: m.start()].count("\n") + 1
            out.append(Block(doc.name, line, m.group(1), m.group(2)))
    return out


def is_command_block(b: Block) -> bool:
    if b.info in SHELL_INFOS:
        return True
    first = next((ln.strip() for ln in b.body.splitlines() if ln.strip()), "")
    return not b.info and first.startswith(PROGRAMS)


def commands(body: str) -> list[str]:
    """The commands of a block: comments dropped, continuations joined (a trailing `\\`
    or `|`, or an indented line under a synopsis), whitespace collapsed."""
    out: list[str] = []
    joining = False
    for raw in body.splitlines():
        line = _COMMENT.sub("", raw).rstrip()
        if not line.strip():
            continue
        if out and (joining or raw[:1].isspace()):
            out[-1] += " " + line.strip()
        else:
            out.append(line.strip())
        joining = line.endswith(("\\", "|"))
        if line.endswith("\\"):
            out[-1] = out[-1][:-1].rstrip()
    return [" ".join(c.split()) for c in out]


def documented() -> list[str]:
    return [c for b in blocks() if is_command_block(b) for c in commands(b.body)]


def test_every_documented_command_is_run_checked_or_skipped_with_a_reason() -> None:
    found = documented()
    assert found, "no command blocks found"
    placed = [*RUN, *SYNOPSES, *SKIPPED]
    assert len(placed) == len(set(placed)), "a command has two places"
    missing = [c for c in found if c not in placed]
    assert not missing, f"commands in the docs with no place in this test: {missing}"
    stale = [c for c in placed if c not in found]
    assert not stale, f"commands no longer in the docs: {stale}"
    assert all(reason.strip() for reason in SKIPPED.values())
    for b in blocks():
        assert is_command_block(b) or b.info in NOT_COMMANDS or not b.info, (b.doc, b.line, b.info)


# ---- running them ------------------------------------------------------------------


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def sh(
    command: str, cwd: Path, ok: tuple[int, ...] = (0, 1), stdin: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    """Run `command` as a reader would paste it into a shell (bash: globs, pipes)."""
    res = subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=_env(**env),
        capture_output=True,
        text=True,
        input=stdin,
        timeout=300,
        check=False,
    )
    out = res.stdout + res.stderr
    assert res.returncode in ok, f"{command!r} exited {res.returncode}:\n{out}"
    assert "Traceback" not in out, f"{command!r}:\n{out}"
    return res


def _variants(command: str) -> list[str]:
    """A synopsis-style command run without its `[...]` groups and with all of them."""
    bare = " ".join(re.sub(r"\[[^\]]*\]", "", command).split())
    full = " ".join(re.sub(r"\[([^\]]*)\]", r"\1", command).split())
    return [bare] if bare == full else [bare, full]


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """The bundled demo project as a git repository of its own."""
    root = tmp_path / "demo"
    shutil.copytree(REPO / "demo", root, symlinks=True)
    new_repo(root, initial_commit=False)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "demo")
    return root


@pytest.mark.e2e  # runs orchestrate through bash, as a reader pastes it
def test_the_lint_synopsis_names_only_real_options_and_choices(tmp_path: Path) -> None:
    for synopsis in SYNOPSES:
        words = synopsis.split()
        help_text = sh(f"{words[0]} {words[1]} --help", tmp_path, ok=(0,)).stdout
        options = set(re.findall(r"--[a-z][a-z-]*", synopsis))
        assert options, synopsis
        for option in options:
            assert option in help_text, f"{option} of the synopsis is not in --help"
        for group in re.findall(r"--[a-z-]+ ([a-z]+(?:\|[a-z]+)+)", synopsis):
            for choice in group.split("|"):
                assert choice in help_text, f"{choice} of the synopsis is not in --help"


@pytest.mark.e2e  # runs orchestrate through bash, as a reader pastes it
def test_tools_commands(tmp_path: Path) -> None:
    """With every pinned install in place (as after a first `tools install`) both
    commands run and report it: `tools install` says each is already installed and runs
    no npm or pip (a real install from the registries: tests/test_recipes.py,
    tests/test_wheel_install.py)."""
    from orchestrator.cli import tools as tools_cli

    cache = tmp_path / "xdg-cache"
    root = managed_tools.user_cache_root()

    def place(target: Path, mark: bytes) -> None:
        # The same place under the child's cache folder (platformdirs: XDG_CACHE_HOME).
        placed = cache / "orchestrate" / target.relative_to(root)
        placed.mkdir(parents=True)
        (placed / managed_tools.MARKER).write_bytes(mark)

    for name in tools_cli.TOOLS:
        target = managed_tools.installed_dir(name)
        lock = managed_tools.bundle_dir(name) / managed_tools.LOCKFILE  # type: ignore[operator]
        assert target is not None
        place(target, managed_tools._digest(lock).encode() + b"\n")
    recipes = tools_cli.recipe_tools()
    for _tool, spec, deps in recipes.values():
        place(managed_tools.pypi_home(spec, deps), managed_tools._pypi_mark(spec, deps))
    install = sh(TOOLS[0], tmp_path, ok=(0,), XDG_CACHE_HOME=str(cache))
    assert "installing" not in install.stdout + install.stderr, install.stdout
    for name in (*tools_cli.TOOLS, *recipes):
        assert f"{name}: " in install.stdout, (name, install.stdout)
    said = [line for line in install.stdout.splitlines() if "Debian package" not in line]
    assert len(said) == len(tools_cli.TOOLS) + len(recipes), install.stdout
    assert all("already installed" in line for line in said), install.stdout
    sh(TOOLS[1], tmp_path, ok=(0, 1), XDG_CACHE_HOME=str(cache))


@pytest.mark.e2e  # runs orchestrate through bash, as a reader pastes it
def test_ci_commands(demo: Path) -> None:
    """docs/ci.md: one share (as written, and the other three the matrix runs), then the
    merge of the four reports."""
    shard, merge = CI
    # "Exit 1 (findings) or 3 (a failed check)": the demo holds both on purpose.
    for i in (1, 2, 3, 4):
        sh(shard.replace("2/4", f"{i}/4").replace("shard-2", f"shard-{i}"), demo, ok=(0, 1, 3))
    sh(merge, demo, ok=(0, 1, 3))
    log = json.loads((demo / "orchestrate.sarif").read_text())
    assert (
        log["version"] == "2.1.0"
        and len(log["runs"][0]["invocations"][0]["properties"]["shards"]) == 4
    )


@pytest.mark.e2e  # runs orchestrate through bash, as a reader pastes it
def test_hosts_command(demo: Path) -> None:
    """docs/hosts.md: the host runs it with one event on stdin (here an empty one)."""
    sh(HOSTS[0], demo, ok=(0,), stdin="{}")


def test_fetch_list_command() -> None:
    """docs/corpora.md: the listing reads what is present, fetches nothing."""
    res = sh(FETCH[0], REPO, ok=(0,))
    assert res.stdout.strip(), res.stderr


@pytest.mark.e2e  # runs orchestrate through bash, as a reader pastes it
def test_hygiene_commands(tmp_path: Path) -> None:
    """docs/hygiene.md, in its order, on a repository with one auto op (a tracked merge
    leftover) and one confirm op (an untracked backup)."""
    repo = new_repo(tmp_path / "r", {"merge.orig": "leftover\n"})
    git(repo, "commit", "-q", "-m", "leftover")
    (repo / "untracked.bak").write_text("only copy\n")
    check, dry, clean, approve, approve_all, undo, validate = HYGIENE
    report = ".orchestrate/runs/hygiene-report.json"
    sh(check, repo)
    entries = json.loads((repo / report).read_text())["entries"]
    confirm = [e["id"] for e in entries if e["safety_tier"] == "confirm"]
    assert confirm and any(e["safety_tier"] == "auto" for e in entries), entries
    sh(dry, repo)
    ran = sh(clean, repo)
    assert not (repo / "merge.orig").exists()  # the auto op
    # REPORT: the report `check` wrote; ID …: the confirm ops `clean` left pending.
    sh(approve.replace("REPORT", report).replace("ID …", " ".join(confirm)), repo)
    assert not (repo / "untracked.bak").exists()
    sh(approve_all, repo)
    # RUN_ID: the run `clean` named ("run RUN_ID: undo with ...").
    run_id = re.search(r"run (\S+): undo with", ran.stdout)
    assert run_id, ran.stdout
    sh(undo.replace("RUN_ID", run_id.group(1)), repo, ok=(0,))
    assert (repo / "merge.orig").read_text() == "leftover\n"
    # FILE: the report `check` wrote.
    sh(validate.replace("FILE", report), repo, ok=(0,))


@pytest.mark.e2e  # runs orchestrate through bash, as a reader pastes it
def test_task_commands(demo: Path) -> None:
    """docs/tasks.md, on the demo project after a lint recorded its findings as tasks;
    each synopsis run without its optional parts and with all of them."""
    sh("orchestrate lint", demo)  # records the tasks the commands below work with
    listing, show, verify, close, nxt = TASKS
    for command in _variants(listing):
        sh(command, demo, ok=(0,))
    tasks = json.loads(sh("orchestrate task list --format json", demo, ok=(0,)).stdout)["tasks"]
    assert tasks
    task = tasks[0]["id"]  # ID: a task `task list` lists
    for command in _variants(show):
        sh(command.replace("ID", task), demo, ok=(0,))
    for command in _variants(verify):  # S: seconds
        # Exit 1 present, 0 absent_unverified, 3 incomplete (as the docs say).
        sh(command.replace("ID", task).replace(" S", " 60"), demo, ok=(0, 1, 3))
    # KIND: one of the resolutions the line's comment lists.
    sh(close.replace("ID", task).replace("KIND", "wont_fix"), demo, ok=(0,))
    for command in _variants(nxt):
        sh(command, demo, ok=(0, 1))
