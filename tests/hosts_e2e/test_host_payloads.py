"""The harness against the real CLIs with a marker hook of the test's own (no orchestrate).

Proves, per host, where each kind of hook output lands in the next model request (the
extraction the adapter tests rely on), and that the real hook input payloads still
have the shape of the recorded fixtures in payloads/<host>/ (the adapters' tests use
those). Set UPDATE_HOST_PAYLOADS=1 to re-record them after a version bump.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from .harness import (
    CLAUDE,
    CODEX,
    GEMINI,
    HOSTS,
    Host,
    added_by_hooks,
    dump,
    git,
    head_commits,
    run_turns,
)

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

PAYLOADS = Path(__file__).parent / "payloads"
#: Written into tmp_path: answers every event with a fixed marker, records the input.
FAKE_CAPTURE_HOOK = r"""
import json, os, sys
host = sys.argv[1]
raw = sys.stdin.buffer.read(1 << 20)
ev = json.loads(raw)
name = ev.get("hook_event_name", "unknown")
out_dir = os.environ["CAPTURE_DIR"]
n = len(os.listdir(out_dir))
with open(os.path.join(out_dir, f"{n:03d}.json"), "w") as f:
    json.dump(ev, f)
marker = "HOOK-MARKER-" + name
cmd = (ev.get("tool_input") or {}).get("command", "") if isinstance(ev.get("tool_input"), dict) else ""
out = None
if name in ("SessionStart", "UserPromptSubmit", "PostToolUse", "AfterTool", "BeforeAgent"):
    out = {"hookSpecificOutput": {"hookEventName": name, "additionalContext": marker}}
elif name == "PreToolUse" and "git commit" in cmd:
    out = {"hookSpecificOutput": {"hookEventName": name, "permissionDecision": "deny",
                                  "permissionDecisionReason": marker}}
elif name == "BeforeTool" and "git commit" in cmd:
    out = {"decision": "deny", "reason": marker}
elif name in ("Stop", "AfterAgent") and not ev.get("stop_hook_active"):
    out = {"decision": "block", "reason": marker}
if out is not None:
    print(json.dumps(out))
"""

EVENTS = {
    "claude-code": ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
                    "PostToolUseFailure", "Stop"],
    "codex": ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"],
    "gemini": ["SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent"],
}  # fmt: skip


def capture_config(host: Host, hook: Path) -> dict[str, Any]:
    """Every event of interest wired to the capture hook, in the host's own layout."""
    command = f"{sys.executable} {hook} {host.name}"
    handler: dict[str, Any] = {"type": "command", "command": command}
    if host is GEMINI:
        handler["timeout"] = 30000  # milliseconds
    else:
        handler["timeout"] = 30
    # No matcher: Gemini's SessionStart did not fire with matcher ".*".
    return {"hooks": {ev: [{"hooks": [handler]}] for ev in EVENTS[host.name]}}


def sanitize(obj: Any, roots: dict[str, str]) -> Any:
    """Machine-specific absolute paths replaced by stable placeholders."""
    if isinstance(obj, str):
        for real, placeholder in roots.items():
            obj = obj.replace(real, placeholder)
        return obj
    if isinstance(obj, dict):
        return {k: sanitize(v, roots) for k, v in obj.items()}
    if isinstance(obj, list):
        return [sanitize(v, roots) for v in obj]
    return obj


def payload_name(ev: dict[str, Any], seen: set[str]) -> str:
    parts = [str(ev.get("hook_event_name", "unknown"))]
    if isinstance(ev.get("tool_name"), str):
        parts.append(re.sub(r"[^A-Za-z0-9_]", "_", ev["tool_name"]))
    if ev.get("stop_hook_active") is True:
        parts.append("stop_hook_active")
    name = ".".join(parts)
    base, i = name, 2
    while name in seen:
        name, i = f"{base}.{i}", i + 1
    seen.add(name)
    return name


@pytest.mark.parametrize("host_name", ["claude-code", "codex", "gemini"])
def test_marker_hook_outputs_reach_next_request(
    host_name: str, tmp_path: Path, make_session: Any
) -> None:
    host = HOSTS[host_name]
    hook = tmp_path / "fake_capture_hook.py"
    hook.write_text(FAKE_CAPTURE_HOOK)
    capture = tmp_path / "captured"
    capture.mkdir()
    session = make_session(host_name, capture_config(host, hook))
    session.env["CAPTURE_DIR"] = str(capture)
    project = session.project
    (project / "staged.py").write_text("x = 1\n")
    git(project, "add", "staged.py")
    before = head_commits(project)

    turns = [
        {"tool_use": host.tool_write(project / "a.py", "import os\n")},
        {"tool_use": host.tool_shell("git commit -q -m 'add staged'")},
    ]
    if host is CLAUDE:  # a failing tool, for the PostToolUseFailure payload
        turns.append({"tool_use": host.tool_shell("exit 3")})
    turns.append({"text": "finished"})
    result = run_turns(session, turns)

    assert result.proc.returncode == 0, result.describe()
    reqs = result.requests
    # one Stop/AfterAgent continuation, then the answer "done" and no re-wake
    assert len(reqs) == len(turns) + 1, result.describe()
    assert head_commits(project) == before, "the denied commit happened"
    post = dict(added_by_hooks(host, reqs[0], reqs[1]))
    assert "HOOK-MARKER-" + ("AfterTool" if host is GEMINI else "PostToolUse") in post.values()
    deny = [t for k, t in added_by_hooks(host, reqs[1], reqs[2]) if k.endswith(":deny")]
    assert deny == ["HOOK-MARKER-" + ("BeforeTool" if host is GEMINI else "PreToolUse")]
    stop = [t for k, t in added_by_hooks(host, reqs[-2], reqs[-1]) if k.endswith(":block")]
    assert stop == ["HOOK-MARKER-" + ("AfterAgent" if host is GEMINI else "Stop")]
    prompt_event = "BeforeAgent" if host is GEMINI else "UserPromptSubmit"
    assert "HOOK-MARKER-" + prompt_event in dump(reqs[0])

    events = [json.loads(p.read_text()) for p in sorted(capture.glob("*.json"))]
    roots = {str(session.home): "/tmp/hosts-e2e/home", str(project): "/tmp/hosts-e2e/project"}
    # Claude Code names its transcript folder after the project path, [^A-Za-z0-9] -> "-".
    roots[re.sub(r"[^A-Za-z0-9]", "-", str(project))] = "-tmp-hosts-e2e-project"
    recorded, seen = {}, set()
    for ev in events:
        recorded[payload_name(ev, seen)] = sanitize(ev, roots)
    out_dir = PAYLOADS / host.name
    if os.environ.get("UPDATE_HOST_PAYLOADS") == "1":
        out_dir.mkdir(parents=True, exist_ok=True)
        for old in out_dir.glob("*.json"):
            old.unlink()
        for name, ev in recorded.items():
            (out_dir / f"{name}.json").write_text(json.dumps(ev, indent=2, sort_keys=True) + "\n")
    stored = {p.stem: json.loads(p.read_text()) for p in out_dir.glob("*.json")}
    assert sorted(stored) == sorted(recorded), "event set changed: re-record the payloads"
    for name, ev in recorded.items():
        assert sorted(ev) == sorted(stored[name]), f"{host.name} {name}: payload keys changed"
    assert host is not CODEX or all(
        e.get("tool_name") == "Bash" for e in events if "tool_name" in e
    )


CODEX_INPUT_SCHEMAS = {
    "PreToolUse": "pre-tool-use",
    "PostToolUse": "post-tool-use",
    "Stop": "stop",
    "UserPromptSubmit": "user-prompt-submit",
}


def test_recorded_codex_payloads_match_published_input_schemas() -> None:
    """The real Codex 0.169 inputs satisfy the host's own published input schemas, so
    adapter tests built from these fixtures test against what Codex really sends."""
    from host_contracts import CODEX_SCHEMAS  # tests/ is on sys.path via the root conftest

    checked = 0
    for path in sorted((PAYLOADS / "codex").glob("*.json")):
        event = json.loads(path.read_text())
        stem = CODEX_INPUT_SCHEMAS.get(event["hook_event_name"])
        if stem is None:
            continue  # no published SessionStart input schema
        schema = json.loads((CODEX_SCHEMAS / f"{stem}.command.input.schema.json").read_text())
        errors = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(event)]
        assert errors == [], f"{path.name}: {errors}"
        checked += 1
    assert checked >= 4
