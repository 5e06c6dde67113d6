"""Run the real Claude Code, Codex CLI and Gemini CLI offline against a scripted model.

One `Host` per CLI knows where the pinned binary lives, how to point it at the
scripted server, where our hook configuration goes, and how to find in a saved model
request the text a hook put there. `run_turns` runs one whole agent session under a
deadline and returns the process result and the saved requests.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from orchestrator.deadline import Deadline
from orchestrator.procs import ProcResult, run_bounded

from .servers import AnthropicApi, Api, GeminiApi, OpenAIResponsesApi, ScriptedServer

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
HOSTS_NODE_BIN = REPO / "tools" / "hosts" / "node_modules" / ".bin"
#: The pinned versions; tools/hosts/package.json and docs/hosts-e2e.md say the same.
CLAUDE_AGENT_SDK_VERSION = "0.2.189"
CLAUDE_CODE_VERSION = "2.1.332"  # the CLI that wheel bundles
CODEX_VERSION = "0.169.0"
GEMINI_VERSION = "0.61.0"
#: One session takes 1-3 s; the bound covers a loaded CI machine, never a hang.
RUN_TIMEOUT = 120.0
GIT_TIMEOUT = 30.0

Request = dict[str, Any]


# --- what a hook put into a request ------------------------------------------------------


def strings_in(obj: object) -> Iterator[str]:
    """Every string value anywhere in a parsed JSON document."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from strings_in(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings_in(v)


def dump(obj: object) -> str:
    """The request as one string, for presence/absence checks of literal values."""
    return json.dumps(obj, ensure_ascii=False)


_CLAUDE_CONTEXT = re.compile(r"(?:^|\n)([A-Za-z]+(?::[A-Za-z]+)?) hook additional context: ")
#: Claude Code appends its own sections after a hook's context inside one text block.
_CLAUDE_SECTION_AFTER = ("\n\nToday's date", "\n\n# Environment", "\n\n<system-reminder>")
_CLAUDE_DENY = re.compile(r"^([A-Za-z]+(?::[A-Za-z]+)?) hook error: (.*)\Z", re.S)
_CLAUDE_STOP = re.compile(r'Stop hook blocking error from command: "(?:[^"\\]|\\.)*": (.*)\Z', re.S)
_CODEX_DENY = re.compile(r"^Command blocked by PreToolUse hook: (.*?)(?:\. Command: .*)?\Z", re.S)
_CODEX_STOP = re.compile(r"<hook_prompt\b[^>]*>(.*?)</hook_prompt>", re.S)
_GEMINI_CONTEXT = re.compile(r"<hook_context>(.*?)</hook_context>", re.S)
_GEMINI_DENY = re.compile(r"^Tool execution blocked: (.*)\Z", re.S)


def _claude_hook_texts(req: Request) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for s in strings_in(req.get("messages", [])):
        for m in _CLAUDE_CONTEXT.finditer(s):
            rest = s[m.end() :]
            cut = min(
                (i for i in (rest.find(x) for x in _CLAUDE_SECTION_AFTER) if i >= 0),
                default=len(rest),
            )
            out.append((f"{m.group(1)}:context", rest[:cut]))
        if m := _CLAUDE_DENY.match(s):
            out.append((f"{m.group(1)}:deny", m.group(2)))
        if m := _CLAUDE_STOP.search(s):
            out.append(("Stop:block", m.group(1)))
    return out


def _codex_hook_texts(req: Request) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for item in req.get("input", []):
        if item.get("type") == "message" and item.get("role") == "developer":
            # Codex adds hook context as developer messages of their own; its own
            # instructions are developer messages too, so callers diff two requests.
            for part in item.get("content", []):
                out.append(("developer", str(part.get("text", ""))))
        elif item.get("type") == "function_call_output":
            if m := _CODEX_DENY.match(str(item.get("output", ""))):
                out.append(("PreToolUse:deny", m.group(1)))
        elif item.get("type") == "message" and item.get("role") == "user":
            for part in item.get("content", []):
                for m in _CODEX_STOP.finditer(str(part.get("text", ""))):
                    out.append(("Stop:block", m.group(1)))
    return out


def _gemini_hook_texts(req: Request) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    contents = req.get("contents", [])
    for i, content in enumerate(contents):
        for part in content.get("parts", []):
            for s in strings_in(part):
                for m in _GEMINI_CONTEXT.finditer(s):
                    out.append(("context", m.group(1)))
            resp = part.get("functionResponse", {}).get("response", {})
            if m := _GEMINI_DENY.match(str(resp.get("error", ""))):
                out.append(("BeforeTool:deny", m.group(1)))
            # An AfterAgent block comes back as a new user turn right after the
            # model's final text: the reason is that turn's text.
            prev = contents[i - 1] if i else {}
            if (
                content.get("role") == "user"
                and "text" in part
                and not _GEMINI_CONTEXT.search(part["text"])
                and prev.get("role") == "model"
                and any("text" in p for p in prev.get("parts", []))
            ):
                out.append(("AfterAgent:block", part["text"]))
    return out


def added_by_hooks(host: Host, before: Request | None, after: Request) -> list[tuple[str, str]]:
    """Hook texts (kind, text) that are in `after` but not in `before`: what hooks added
    between two consecutive model requests."""
    old = Counter(host.hook_texts(before) if before is not None else [])
    new: list[tuple[str, str]] = []
    for item in host.hook_texts(after):
        if old[item]:
            old[item] -= 1
        else:
            new.append(item)
    return new


# --- the hosts -----------------------------------------------------------------------------


def _claude_binary() -> tuple[Path | None, str | None]:
    spec = importlib.util.find_spec("claude_agent_sdk")
    if spec is None or not spec.submodule_search_locations:
        return None, None
    bundled = Path(next(iter(spec.submodule_search_locations))) / "_bundled"
    path = bundled / "claude"
    if not (path.is_file() and os.access(path, os.X_OK)):
        return None, None
    version_file = bundled / "claude.version"
    version = version_file.read_text().split()[0] if version_file.is_file() else None
    return path, version


def _node_bin(name: str, package: str) -> Callable[[], tuple[Path | None, str | None]]:
    def locate() -> tuple[Path | None, str | None]:
        path = HOSTS_NODE_BIN / name
        if not path.exists():
            return None, None
        meta = REPO / "tools" / "hosts" / "node_modules" / package / "package.json"
        version = json.loads(meta.read_text()).get("version") if meta.is_file() else None
        return path, version

    return locate


@dataclass(frozen=True)
class Host:
    """One agent host CLI as the tests drive it."""

    name: str  # the `orchestrate hook <name>` argument
    api: Callable[[], Api]
    #: the CLI binary and the version it reports, or (None, None)
    locate: Callable[[], tuple[Path | None, str | None]]
    version: str
    install_hint: str
    hook_texts: Callable[[Request], list[tuple[str, str]]]
    #: our shipped configuration, relative to the repository
    config: str
    tool_write: Callable[[Path, str], dict[str, Any]] = field(repr=False, default=lambda p, c: {})
    tool_shell: Callable[[str], dict[str, Any]] = field(repr=False, default=lambda c: {})


def _shell_write(path: Path, content: str) -> str:
    # printf '%s\n' with one argument per line: the content never passes through a
    # format string, and the script's quoting is plain single quotes.
    lines = content.rstrip("\n").split("\n")
    assert all("'" not in line for line in lines), "test content must not hold single quotes"
    return "printf '%s\\n' " + " ".join(f"'{line}'" for line in lines) + f" > '{path}'"


CLAUDE = Host(
    name="claude-code",
    api=AnthropicApi,
    locate=_claude_binary,
    version=CLAUDE_CODE_VERSION,
    install_hint=f".venv/bin/pip install claude-agent-sdk=={CLAUDE_AGENT_SDK_VERSION}",
    hook_texts=_claude_hook_texts,
    config="hooks/claude-code/settings.json",
    tool_write=lambda p, c: {"name": "Write", "input": {"file_path": str(p), "content": c}},
    tool_shell=lambda c: {"name": "Bash", "input": {"command": c}},
)
CODEX = Host(
    name="codex",
    api=OpenAIResponsesApi,
    locate=_node_bin("codex", "@openai/codex"),
    version=CODEX_VERSION,
    install_hint="npm ci --prefix tools/hosts",
    hook_texts=_codex_hook_texts,
    config="hooks/codex/hooks.json",
    # Codex 0.169 offers no file-writing tool to an unknown model and fires no
    # PostToolUse for an intercepted apply_patch: agents write files via the shell.
    tool_write=lambda p, c: {"name": "exec_command", "input": {"cmd": _shell_write(p, c)}},
    tool_shell=lambda c: {"name": "exec_command", "input": {"cmd": c}},
)
GEMINI = Host(
    name="gemini",
    api=GeminiApi,
    locate=_node_bin("gemini", "@google/gemini-cli"),
    version=GEMINI_VERSION,
    install_hint="npm ci --prefix tools/hosts",
    hook_texts=_gemini_hook_texts,
    config="hooks/gemini/settings.json",
    tool_write=lambda p, c: {"name": "write_file", "input": {"file_path": str(p), "content": c}},
    tool_shell=lambda c: {"name": "run_shell_command", "input": {"command": c}},
)
HOSTS = {h.name: h for h in (CLAUDE, CODEX, GEMINI)}


def require_host(host: Host) -> Path:
    """The host's CLI binary at the pinned version; a missing or different one FAILS
    under CI=true with the install command, and is skipped with it elsewhere."""
    path, version = host.locate()
    if path is not None and version == host.version:
        return path
    found = "not installed" if path is None else f"version {version}, pinned {host.version}"
    msg = f"{host.name} CLI {found}: run `{host.install_hint}` (see docs/hosts-e2e.md)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(msg, pytrace=False)
    pytest.skip(msg)


# --- a project, a home, one session --------------------------------------------------------


def git(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run git in `project` with a bound; raises on failure (test set-up must not fail)."""
    return subprocess.run(
        ["git", *args], cwd=project, check=True, capture_output=True, text=True, timeout=GIT_TIMEOUT
    )


def make_project(root: Path) -> Path:
    """A real git repository with one commit, identity set, no global config read."""
    project = root / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.email", "dev@example.invalid")
    git(project, "config", "user.name", "Dev")
    git(project, "config", "commit.gpgsign", "false")
    (project / "README.md").write_text("# demo\n")
    (project / ".gitignore").write_text(".orchestrate/\n")
    git(project, "add", "README.md", ".gitignore")
    git(project, "commit", "-q", "-m", "init")
    return project


def head_commits(project: Path) -> list[str]:
    """The commit ids reachable from HEAD, newest first."""
    return git(project, "rev-list", "HEAD").stdout.split()


def base_env(home: Path, tmp: Path) -> dict[str, str]:
    """A closed environment: our venv first on PATH (so `orchestrate` and `python3`
    resolve to the project's), a private HOME, nothing inherited that points at a
    real account or a real API."""
    node = shutil.which("node")
    path = [str(VENV_BIN)]
    if node:
        path.append(str(Path(node).parent))
    path += ["/usr/local/bin", "/usr/bin", "/bin"]
    return {
        "PATH": os.pathsep.join(dict.fromkeys(path)),
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }


def load_config(host: Host) -> dict[str, Any] | None:
    """Our shipped hook configuration for `host`, or None while it does not exist."""
    path = REPO / host.config
    return json.loads(path.read_text()) if path.is_file() else None


def substitute_command(config: Any, orchestrate: str) -> Any:
    """The config with every hook `command` made absolute: a leading `orchestrate` word
    or a `${ORCHESTRATE}` / `{{orchestrate}}` placeholder becomes `orchestrate`'s path."""
    if isinstance(config, dict):
        out = {}
        for k, v in config.items():
            if k == "command" and isinstance(v, str):
                for ph in ("${ORCHESTRATE}", "$ORCHESTRATE", "{{orchestrate}}", "{{ORCHESTRATE}}"):
                    v = v.replace(ph, orchestrate)
                if v.startswith("orchestrate "):
                    v = orchestrate + v[len("orchestrate") :]
            out[k] = substitute_command(v, orchestrate) if k != "command" else v
        return out
    if isinstance(config, list):
        return [substitute_command(v, orchestrate) for v in config]
    return config


@dataclass
class Session:
    """Everything one host run needs: where it runs and what it was told."""

    host: Host
    binary: Path
    project: Path
    home: Path
    log_dir: Path
    hooks_config: dict[str, Any]
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RunResult:
    """What one session did: the process and the model requests it sent."""

    proc: ProcResult
    requests: list[Request]

    @property
    def output(self) -> str:
        return (self.proc.stdout + b"\n" + self.proc.stderr).decode("utf-8", "replace")

    def describe(self) -> str:
        """A bounded diagnostic for assertion messages."""
        return (
            f"rc={self.proc.returncode} timed_out={self.proc.timed_out} "
            f"requests={len(self.requests)}\n{self.output[-3000:]}"
        )


def new_session(host_name: str, root: Path, hooks_config: dict[str, Any] | None = None) -> Session:
    """A Session under `root`: a fresh git project and HOME, the host's CLI located
    (missing under CI=true = failure) and the hook configuration ready to install -
    by default OUR shipped one from hooks/, with `orchestrate` made absolute."""
    host = HOSTS[host_name]
    binary = require_host(host)
    config = hooks_config if hooks_config is not None else load_config(host)
    if config is None:
        pytest.fail(f"{host.config} is missing: the shipped hook configuration is required")
    project = make_project(root)
    home = root / "home"
    home.mkdir()
    config = substitute_command(config, str(VENV_BIN / "orchestrate"))
    return Session(host, binary, project, home, root / "requests", config)


def _install(session: Session, base_url: str) -> tuple[list[str], dict[str, str]]:
    host, project, home = session.host, session.project, session.home
    env = base_env(home, session.log_dir.parent)
    if host is CLAUDE:
        (project / ".claude").mkdir(exist_ok=True)
        (project / ".claude" / "settings.json").write_text(json.dumps(session.hooks_config))
        env.update(
            ANTHROPIC_BASE_URL=base_url,
            ANTHROPIC_API_KEY="scripted-dummy",
            DISABLE_AUTOUPDATER="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )
        argv = [
            "--permission-mode",
            "acceptEdits",
            "--allowedTools",
            "Bash",
            "--output-format",
            "json",
        ]
        return [str(session.binary), *argv, "-p"], env
    if host is CODEX:
        codex_home = home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        # danger-full-access: with the workspace-write sandbox .git could be read-only,
        # and a blocked commit must be blocked by our hook, not by the sandbox.
        (codex_home / "config.toml").write_text(
            'model = "gpt-test"\nmodel_provider = "scripted"\napproval_policy = "never"\n'
            'sandbox_mode = "danger-full-access"\n'
            "[model_providers.scripted]\n"
            f'name = "scripted"\nbase_url = "{base_url}/v1"\nenv_key = "SCRIPTED_KEY"\n'
            'wire_api = "responses"\n[features]\nhooks = true\n'
        )
        (codex_home / "hooks.json").write_text(json.dumps(session.hooks_config))
        env.update(CODEX_HOME=str(codex_home), SCRIPTED_KEY="scripted-dummy")
        argv = ["exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check"]
        return [str(session.binary), *argv, "--"], env
    gemini_home = home / ".gemini"
    gemini_home.mkdir(parents=True, exist_ok=True)
    user_settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}}
    }
    (gemini_home / "settings.json").write_text(json.dumps(user_settings))
    (project / ".gemini").mkdir(exist_ok=True)
    (project / ".gemini" / "settings.json").write_text(json.dumps(session.hooks_config))
    env.update(GOOGLE_GEMINI_BASE_URL=base_url, GEMINI_API_KEY="scripted-dummy")
    # A named model: the default "auto" first asks a routing model we do not script.
    return [str(session.binary), "-m", "gemini-2.5-flash", "--yolo", "-p"], env


def run_turns(
    session: Session,
    turns: Sequence[dict[str, Any]],
    prompt: str = "go",
    timeout: float = RUN_TIMEOUT,
) -> RunResult:
    """Run one whole session: the scripted model answers `turns` in order, the real CLI
    executes the tools and fires the hooks. The server is stopped before returning."""
    server = ScriptedServer(session.host.api(), turns, session.log_dir)
    try:
        server.start()
        argv, env = _install(session, server.base_url)
        env.update(session.env)
        proc = run_bounded(
            [*argv, prompt],
            deadline=Deadline.after(timeout),
            cwd=session.project,
            env=env,
            output_budget=4 * 1024 * 1024,
        )
    finally:
        server.stop()
    return RunResult(proc, server.requests())
