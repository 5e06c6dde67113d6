"""Strict entries never fail open: a raise in any function a strict entry reaches ends
in that entry's refusal (issue: "Strict entries never fail open").

For each host, each strict event (a `git commit` with a staged AWS key pair through the
shell tool; a file edit aimed at the git hooks folder) and each strict CLI gate (commit,
commit-msg, push, ci), the functions reached are listed by running the entry once under
a trace hook (tests/fault_injection.py); then each of them, one at a time, raises on its
first call, and the entry must still refuse: the host's deny shape (and never an empty
answer), or a non-zero gate exit. Each injected fault must also have fired.

The entries share most of their path: claude-code's `git commit` is swept whole; each
other entry sweeps what it reaches and a wider one does not, plus a spread sample of
the shared functions (`_own_and_sample`), so every function of every strict path raises
at least once and each entry's own outer layers see deep faults too. The wider one is
claude-code's entry of the same scenario for the other hosts; claude-code's `git commit`
for `gate commit` and for the legacy gate (the host's commit runs the same gate: it
reaches all but about 35 of the 500-odd functions of each); `gate commit` for the other
CLI gates (they reach a few dozen
functions beyond it, and `gate commit` itself sweeps all it reaches beyond the host).
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from fault_injection import InjectedFault, label, raising, reachable
from helpers import git, new_repo
from host_contracts import check_claude, check_codex, check_gemini

from orchestrator.core import plugin_host
from orchestrator.hosts import guard

KEY_ID = "AKIA" + "QWERTYUIOPASDFGH"
KEY_SECRET = "aB3/" * 10
CHECKS = {"claude-code": check_claude, "codex": check_codex, "gemini": check_gemini}
SHELL = {"claude-code": "Bash", "codex": "Bash", "gemini": "run_shell_command"}
WRITE = {"claude-code": "Write", "codex": "Write", "gemini": "write_file"}
BEFORE = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}


@pytest.fixture(autouse=True)
def _signal_mask() -> object:
    """The guard holds SIGTERM / SIGINT off once it answers a fault (until its process
    exits); in-process, the test process gets its mask back."""
    import signal

    saved = signal.pthread_sigmask(signal.SIG_BLOCK, ())
    yield
    signal.pthread_sigmask(signal.SIG_SETMASK, saved)


@pytest.fixture
def secret_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with an AWS-shaped key pair and a Python file staged, a private
    user cache folder, and the process in the repository (the CLI gates read cwd)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # A fault in a thread that waits on a tool (the reaper, the output pump) ends at the
    # gate's deadline: a short one keeps those cases short (still refused, and said).
    monkeypatch.setenv("ORCHESTRATE_TEST_GATE_DEADLINE_S", "3")
    repo = new_repo(tmp_path / "repo")
    (repo / "config").mkdir()
    (repo / "config" / ".env").write_text(
        f"AWS_ACCESS_KEY_ID={KEY_ID}\nAWS_SECRET_ACCESS_KEY={KEY_SECRET}\n"
    )
    (repo / "ok.py").write_text("VALUE = 1\n")
    git(repo, "add", "config/.env", "ok.py")
    monkeypatch.chdir(repo)
    return repo


def _event(host: str, repo: Path, scenario: str) -> bytes:
    if scenario == "commit":
        tool, tool_input = SHELL[host], {"command": "git commit -q -m x"}
    else:
        target = repo / ".git" / "hooks" / "pre-commit"
        tool, tool_input = WRITE[host], {"file_path": str(target), "content": "exit 0\n"}
    return json.dumps(
        {
            "session_id": "s",
            "cwd": str(repo),
            "hook_event_name": BEFORE[host],
            "tool_name": tool,
            "tool_input": tool_input,
        }
    ).encode()


def _answer(host: str, repo: Path, data: bytes) -> tuple[int, bytes, bytes]:
    """One in-process `orchestrate hook HOST`: (exit code, stdout, stderr)."""
    env = {"PATH": os.environ["PATH"], "CLAUDE_PROJECT_DIR": str(repo), "HOME": str(repo)}
    plugin_host.forget_searched()  # as a new process: the plugin search is reached too
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        code = guard.answer(
            host, io.BufferedReader(io.BytesIO(data)), env, out_fd=out.fileno(), err_fd=err.fileno()
        )
        out.seek(0)
        err.seek(0)
        return code, out.read(), err.read()


def _refused(host: str, code: int, out: bytes, err: bytes) -> str | None:
    """None when (code, out, err) is the host's refusal, else why not."""
    if code == guard.REFUSAL_EXIT:
        if out != guard.REFUSALS[host] or not err.strip():
            return f"exit 2 without the constant refusal: {out[:200]!r} {err[:200]!r}"
        return None
    if code != 0 or not out.strip():
        return f"exit {code}, stdout {out[:200]!r}"
    obj = json.loads(out)
    hso = obj.get("hookSpecificOutput") or {}
    if hso.get("permissionDecision") == "deny" or obj.get("decision") == "deny":
        CHECKS[host](BEFORE[host], code, out)
        return None
    return f"not refused: {out[:300]!r}"


def _sweep(run: Callable[[], str | None], codes: list) -> None:
    """Each code object raising in turn: every run must refuse, every fault must fire."""
    open_, unfired = [], []
    for code in codes:
        # A run cut short by the short deadline on a loaded machine may end before it
        # reaches `code`: such a fault is armed again (twice), never counted as tested.
        for _ in range(3):
            with raising(code) as armed:
                why = run()
            if armed.fired:
                break
        if not armed.fired:
            unfired.append(label(code))
        elif why is not None:
            open_.append(f"{label(code)}: {why}")
    assert not open_, f"{len(open_)} of {len(codes)} faults did not refuse:\n" + "\n".join(open_)
    assert not unfired, "armed faults that never fired:\n" + "\n".join(unfired)


#: Each sweep runs in this many parts (the i-th takes every SHARDS-th function), so the
#: test workers share the long ones evenly.
SHARDS = 2
#: claude-code's `git commit`, swept whole (600-odd functions, over a minute), in more
#: parts: no one of them holds a test worker much longer than the tier's other long
#: tests, so the two workers end close together.
FULL_SHARDS = 4
#: The entry whose sweep covers every function it reaches: claude-code's, per scenario.
#: The other hosts and gates share most of their path with it (the router, the pre-tool
#: gate, the core, the checkers: codex and gemini reach about 8 functions claude-code
#: does not; its `git commit` runs the commit gate, so `gate commit` and the legacy
#: gate each reach only about 35 it does not).
FULL_HOST = "claude-code"
#: The CLI gate the other strict CLI gates are measured against (the commit-msg, push
#: and ci gates reach a few dozen functions beyond it): its own sweep takes what the
#: host's `git commit` does not reach, plus the sample.
FULL_GATE = "commit"
#: How many of the shared functions each other entry still sweeps itself, spread over
#: the path (every n-th), so a deep fault is seen through that entry's own outer layers.
SHARED_SAMPLE = 24


def _whole(value: str, full: str) -> object:
    """A parameter; `full`'s is in the end-to-end tier (`gate commit`'s traces the whole
    of claude-code's `git commit` before its own sweep, and stays beside that sweep)."""
    return pytest.param(value, marks=pytest.mark.e2e) if value == full else value


def _host_cases() -> list:
    """(host, scenario, shard, shards) of each host sweep. claude-code's are in the
    end-to-end tier: its sweeps raise in several hundred functions, minutes on two
    cores, where each other host's takes seconds (README "Tests": the fast tier runs
    those)."""
    out = []
    for host in sorted(guard.REFUSALS):
        for scenario in ("commit", "protected_edit"):
            shards = FULL_SHARDS if (host, scenario) == (FULL_HOST, "commit") else SHARDS
            marks = (pytest.mark.e2e,) if host == FULL_HOST else ()
            out += [
                pytest.param(host, scenario, i, shards, marks=marks, id=f"{host}-{scenario}-{i}")
                for i in range(shards)
            ]
    return out


#: What the test's own runs call before the entry (never armed).
HELPERS = (plugin_host.forget_searched,)
#: The functions each entry reaches, listed once per test process: {(entry, scenario): codes}.
_REACHED: dict[tuple[str, str], list] = {}


def _reached(key: tuple[str, str], run: Callable[[], object], exclude: tuple = ()) -> list:
    """`reachable(run)` for the entry and scenario `key`, traced once per test process.

    Every case of an entry runs the same path over a repository built the same way, so
    one listing serves them all: the shards of one sweep then split the same list, and
    each other entry's case does not trace the fully swept entry again."""
    if key not in _REACHED:
        # The traced run is several times slower: under the sweeps' short deadline a
        # loaded machine cuts it, and the listing would then hold functions only that
        # cut reaches (a git call's timeout words, the fault handler), which no armed
        # run reaches. So it runs under the gate's own deadline (as the legacy sweep
        # lists under a long one).
        with pytest.MonkeyPatch.context() as mp:
            mp.delenv("ORCHESTRATE_TEST_GATE_DEADLINE_S")
            _REACHED[key] = reachable(run, exclude=(*exclude, *HELPERS))
    return _REACHED[key]


def _full_commit(repo: Path) -> list:
    """What claude-code's `git commit` of the key pair reaches (the fully swept entry's
    listing), after one run of it that refuses: the listing the other commit entries
    (`gate commit`, the legacy gate) are measured against. The untraced run first, as in
    that entry's own case, so both list the same functions (none of the module bodies
    a first run imports)."""
    data = _event(FULL_HOST, repo, "commit")
    assert _refused(FULL_HOST, *_answer(FULL_HOST, repo, data)) is None
    return _reached(
        (FULL_HOST, "commit"), lambda: _answer(FULL_HOST, repo, data), exclude=(guard.answer,)
    )


def _own_and_sample(codes: list, full: list) -> list:
    """The functions of `codes` that the fully swept entry (`full`) never reaches, and
    a spread sample of the ones it does: the sweep an entry still needs of its own."""
    known = set(full)
    own = [c for c in codes if c not in known]
    shared = [c for c in codes if c in known]
    step = max(1, len(shared) // SHARED_SAMPLE)
    return own + shared[::step][:SHARED_SAMPLE]


#: Injected faults in threads show up as unhandled-thread warnings: expected here.
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")


@pytest.mark.parametrize(("host", "scenario", "shard", "shards"), _host_cases())
def test_a_raise_anywhere_below_a_host_entry_refuses(
    secret_repo: Path, host: str, scenario: str, shard: int, shards: int
) -> None:
    if host != FULL_HOST:
        # First, so the module bodies imported on the way count as the full entry's.
        first = _event(FULL_HOST, secret_repo, scenario)
        full = _reached(
            (FULL_HOST, scenario),
            lambda: _answer(FULL_HOST, secret_repo, first),
            exclude=(guard.answer,),
        )
    data = _event(host, secret_repo, scenario)
    assert _refused(host, *_answer(host, secret_repo, data)) is None  # refused without a fault
    codes = _reached(
        (host, scenario), lambda: _answer(host, secret_repo, data), exclude=(guard.answer,)
    )
    assert len(codes) > (150 if scenario == "commit" else 30), len(codes)
    if host != FULL_HOST:
        codes = _own_and_sample(codes, full)
        assert any(c.co_filename.endswith(f"/hosts/{host.replace('-', '_')}.py") for c in codes)
    _sweep(lambda: _refused(host, *_answer(host, secret_repo, data)), codes[shard::shards])


def test_the_constant_refusals_are_each_hosts_own_deny_shape() -> None:
    for host, out in guard.REFUSALS.items():
        assert _refused(host, 0, out, b"") is None
        text = json.dumps(json.loads(out))
        assert guard.FAULT_REASON in text


def test_a_fault_before_the_event_is_read_refuses(secret_repo: Path) -> None:
    class Broken(io.RawIOBase):
        def readinto(self, b: object) -> int:
            raise InjectedFault("stdin")

    for host in guard.REFUSALS:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            code = guard.answer(host, Broken(), {}, out_fd=out.fileno(), err_fd=err.fileno())  # type: ignore[arg-type]
            out.seek(0)
            assert code == guard.REFUSAL_EXIT and out.read() == guard.REFUSALS[host]


def test_a_fault_on_a_feedback_event_says_so_and_never_blocks(secret_repo: Path) -> None:
    from orchestrator.hosts import router

    data = json.dumps(
        {"session_id": "s", "cwd": str(secret_repo), "hook_event_name": "Stop"}
    ).encode()
    for host in guard.REFUSALS:
        with raising(router.RouteResult.bounded.__code__) as armed:
            code, out, _ = _answer(host, secret_repo, data)
        assert armed.fired
        assert code == 0 and out == guard.FAULT_NOTE, (code, out)


def _gate_case(repo: Path, event: str) -> tuple[list[str], bytes]:
    """The argv and pre-push stdin of the strict CLI gate `event` over the key pair."""
    if event == "commit":
        return ["gate", "commit", "--timeout", "20"], b""
    if event == "commit-msg":
        msg = repo / ".git" / "COMMIT_EDITMSG"
        msg.write_text(f"add config\n\nAWS_SECRET_ACCESS_KEY={KEY_SECRET}\nkey {KEY_ID}\n")
        return ["gate", "commit-msg", str(msg), "--timeout", "20"], b""
    git(repo, "commit", "-q", "--no-verify", "-m", "add config")
    head = git(repo, "rev-parse", "HEAD").strip()
    if event == "ci":
        return ["gate", "ci", "--rev", head, "--timeout", "20"], b""
    remote = repo.parent / "remote.git"
    if not remote.exists():
        git(repo.parent, "init", "-q", "--bare", str(remote))
        git(repo, "remote", "add", "origin", str(remote))
        git(repo, "push", "-q", "--no-verify", "origin", "HEAD~1:refs/heads/main")
    base = git(repo, "rev-parse", "HEAD~1").strip()
    line = f"refs/heads/main {head} refs/heads/main {base}\n".encode()
    return ["gate", "push", "origin", str(remote), "--timeout", "20"], line


#: `_run_gate`'s answer for an exception that left `main`: the interpreter exits 1 (a
#: strict hook blocks on it; the legacy hook script turns it into its fail-open exit 0).
UNCAUGHT = 1


def _run_gate(argv: list[str], stdin: bytes, monkeypatch: pytest.MonkeyPatch) -> int:
    """One in-process strict CLI gate, as the installed git hook runs it."""
    import sys

    from orchestrator.cli.main import main

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(stdin))))
    plugin_host.forget_searched()  # as a new process: the plugin search is reached too
    try:
        return main(argv)
    except SystemExit as exc:  # what the interpreter would exit with
        return exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    except BaseException:  # noqa: BLE001 - uncaught: the interpreter's exit 1
        return UNCAUGHT


@pytest.mark.parametrize("shard", range(SHARDS))
@pytest.mark.parametrize(
    "event", [_whole(e, FULL_GATE) for e in ("commit", "commit-msg", "push", "ci")]
)
def test_a_raise_anywhere_below_a_strict_cli_gate_blocks(
    secret_repo: Path,
    event: str,
    shard: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if event != FULL_GATE:
        # Before `_gate_case` commits for push and ci: the full entry's own case.
        first, first_in = _gate_case(secret_repo, FULL_GATE)
        full = _reached(("gate", FULL_GATE), lambda: _run_gate(first, first_in, monkeypatch))
    else:
        full = _full_commit(secret_repo)
    argv, stdin = _gate_case(secret_repo, event)
    assert _run_gate(argv, stdin, monkeypatch) == 1  # deny without a fault
    codes = _reached(("gate", event), lambda: _run_gate(argv, stdin, monkeypatch))
    assert len(codes) > 60, len(codes)
    codes = _own_and_sample(codes, full)
    if event == FULL_GATE:  # its own outer layer, which the host's commit never reaches
        assert any(c.co_filename.endswith("/cli/gate.py") for c in codes)
    # A fault in a thread that waits on a tool ends at the gate's deadline: keep it short.
    short = [*argv[:-1], "4"]

    def blocked() -> str | None:
        code = _run_gate(short, stdin, monkeypatch)
        return None if code != 0 else "exit 0"

    _sweep(blocked, codes[shard::SHARDS])
    capsys.readouterr()


def test_a_strict_gate_whose_answer_cannot_be_written_never_passes(
    secret_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A closed stdout (BrokenPipeError) is exit 0 for lint and friends, never at a
    strict gate: there it is an internal fault."""

    def closed(*args: object, **kwargs: object) -> None:  # fault injection: stdout closed
        raise BrokenPipeError(32, "Broken pipe")

    # Only the strict gate's own name: a module imported meanwhile must not keep the fake.
    monkeypatch.setattr("orchestrator.cli.gate.emit_gate", closed)
    argv, stdin = _gate_case(secret_repo, "commit")
    assert _run_gate(argv, stdin, monkeypatch) == 4


# --- an event over the 1 MiB budget (a Write of a large file) ---------------------------


def _big_write(host: str, repo: Path, target: str, size: int = 5 * 1024 * 1024) -> bytes:
    content = "x = 1\n" * (size // 6)
    return json.dumps(
        {
            "session_id": "s",
            "cwd": str(repo),
            "hook_event_name": BEFORE[host],
            "tool_name": WRITE[host],
            "tool_input": {"file_path": str(repo / target), "content": content},
        }
    ).encode()


@pytest.mark.parametrize("host", sorted(guard.REFUSALS))
def test_a_large_write_outside_protected_paths_goes_on_unchecked(
    secret_repo: Path, host: str
) -> None:
    code, out, _ = _answer(host, secret_repo, _big_write(host, secret_repo, "big.py"))
    obj = CHECKS[host](BEFORE[host], code, out)
    assert (obj.get("hookSpecificOutput") or {}).get("permissionDecision") is None
    assert obj.get("decision") is None
    assert "feedback not run: event over budget" in obj["systemMessage"]


@pytest.mark.parametrize("host", sorted(guard.REFUSALS))
@pytest.mark.parametrize("case", ["protected", "shell", "duplicate_path", "no_path", "not_json"])
def test_a_large_event_that_may_deliver_or_hit_a_protected_path_is_refused(
    secret_repo: Path, host: str, case: str
) -> None:
    if case == "protected":
        data = _big_write(host, secret_repo, ".git/hooks/pre-commit")
    elif case == "shell":
        command = "git commit -q -m x # " + "y" * (2 * 1024 * 1024)
        event = json.loads(_event(host, secret_repo, "commit"))
        event["tool_input"]["command"] = command
        data = json.dumps(event).encode()
    elif case == "duplicate_path":  # the first path looks harmless, JSON keeps the last
        data = _big_write(host, secret_repo, "big.py").replace(
            b'"content"', f'"file_path": "{secret_repo}/.git/hooks/pre-push", "content"'.encode()
        )
    elif case == "no_path":
        data = _big_write(host, secret_repo, "big.py").replace(b'"file_path"', b'"other"')
    else:
        data = _big_write(host, secret_repo, "big.py")[:-3]
    code, out, err = _answer(host, secret_repo, data)
    assert _refused(host, code, out, err) is None, out[:300]


def test_an_event_over_the_skim_limit_is_refused(secret_repo: Path) -> None:
    """Over 64 MiB the event is not even skimmed: refused. The limit is the shared
    intake's, before any adapter (the cases above show each host's refusal shape), so
    one host reads the 65 MiB event here."""
    data = _big_write(FULL_HOST, secret_repo, "big.py", size=65 * 1024 * 1024)
    code, out, err = _answer(FULL_HOST, secret_repo, data)
    assert _refused(FULL_HOST, code, out, err) is None, out[:300]


@pytest.mark.e2e
def test_a_large_write_through_the_cli(secret_repo: Path) -> None:
    """End to end: `orchestrate hook claude-code` reads a 5 MB Write and lets it go on."""
    from helpers import run_cli

    data = _big_write("claude-code", secret_repo, "big.py").decode()
    res = run_cli(["hook", "claude-code"], secret_repo, stdin=data)
    obj = check_claude("PreToolUse", res.returncode, res.stdout.encode())
    assert "feedback not run: event over budget" in obj["systemMessage"]


@pytest.mark.e2e
@pytest.mark.parametrize("host", sorted(guard.REFUSALS))
def test_a_fault_in_a_spawned_hook_refuses_in_the_hosts_shape(
    secret_repo: Path, host: str, tmp_path: Path
) -> None:
    """End to end, one per host: `orchestrate hook HOST` with its output bounding step
    raising (a sitecustomize fake) answers the constant refusal, exit 2, reason on stderr."""
    from fault_injection import sitecustomize_fault
    from helpers import run_cli

    env = sitecustomize_fault(
        tmp_path / "fault", "orchestrator.hosts.router", "RouteResult.bounded"
    )
    data = _event(host, secret_repo, "commit").decode()
    res = run_cli(["hook", host], secret_repo, env=env, stdin=data)
    assert res.returncode == guard.REFUSAL_EXIT, (res.returncode, res.stdout, res.stderr)
    assert res.stdout.encode() == guard.REFUSALS[host]
    assert guard.FAULT_REASON in res.stderr
    assert "injected fault" not in res.stdout + res.stderr  # nothing of the fault is echoed


@pytest.mark.e2e
@pytest.mark.parametrize("signals", [1, 2])
def test_a_hook_stopped_by_sigterm_mid_gate_refuses(tmp_path: Path, signals: int) -> None:
    """A host (or a person) ends the hook while its gate waits on a hung tool: one
    SIGTERM, or a second one while the first unwinds, still ends in the refusal, exit 2,
    and no tool process is left behind."""
    import signal
    import subprocess
    import time

    from helpers import VENV_BIN
    from test_gate_hung_checker import HANGS_ON_CHECK, _alive, _fake_ruff, _setup

    fake, pids = _fake_ruff(tmp_path, "fake-ruff-hangs", HANGS_ON_CHECK)
    repo, env = _setup(tmp_path, fake)
    data = _event("claude-code", repo, "commit")
    proc = subprocess.Popen(
        [str(VENV_BIN / "orchestrate"), "hook", "claude-code"],
        cwd=repo,
        env={**env, "CLAUDE_PROJECT_DIR": str(repo)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(data)
    proc.stdin.close()
    waited = time.monotonic() + 60
    while not _alive(pids) and time.monotonic() < waited:  # the gate is checking now
        time.sleep(0.05)
    assert _alive(pids), "the fake ruff never started"
    for _ in range(signals):
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.01)
    proc.wait(timeout=60)
    out, err = proc.stdout.read(), proc.stderr.read()
    assert proc.returncode == guard.REFUSAL_EXIT, (proc.returncode, out, err)
    assert out.endswith(guard.REFUSALS["claude-code"]), out
    assert guard.FAULT_REASON.encode() in err
    time.sleep(0.2)
    assert not _alive(pids)


# --- legacy-v1 stays outside the guard: it fails open, never certifies ------------------


@pytest.mark.e2e  # traces claude-code's whole `git commit` first, as `gate commit` does
@pytest.mark.parametrize("shard", range(SHARDS))
def test_a_raise_anywhere_below_the_legacy_gate_never_certifies(
    secret_repo: Path,
    shard: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Seed 004: a legacy-v1 gate that fails internally exits 0 with a diagnostic and
    never a certified pass; with the key pair staged, every other outcome blocks (2)."""
    argv = ["compat", "legacy-v1", "gate", "commit", "--timeout", "20"]
    full = _full_commit(secret_repo)
    assert _run_gate(argv, b"", monkeypatch) == 2  # the secret blocks, no fault
    capsys.readouterr()
    codes = reachable(lambda: _run_gate(argv, b"", monkeypatch), exclude=HELPERS)
    assert len(codes) > 60, len(codes)
    codes = _own_and_sample(codes, full)
    assert any(c.co_filename.endswith("/cli/legacy_gate.py") for c in codes)
    short = [*argv[:-1], "4"]

    def honest() -> str | None:
        code = _run_gate(short, b"", monkeypatch)
        said = capsys.readouterr()
        text = said.out + said.err
        if code in (2, UNCAUGHT):  # blocked; or the hook script's fail-open (install tests)
            return None
        # Fail-open says so: UNVERIFIED, or nothing evaluated (a git call the fault broke
        # reads as no repository); never the pass headline.
        said_open = "UNVERIFIED" in text or "delivery was not evaluated" in text
        if code == 0 and said_open and "pass (exit 0)" not in text:
            return None
        return f"exit {code}: {text[-300:]!r}"

    _sweep(honest, codes[shard::SHARDS])
