"""Each host's own output contract, for the adapter tests.

- Claude Code: the hook output TypedDicts of the `claude-agent-sdk` package, checked
  with a pydantic TypeAdapter. The SDK declares them with `typing.TypedDict`, which
  pydantic refuses on Python < 3.12, so they are rebuilt field for field as
  `typing_extensions.TypedDict` (closed: unknown keys are rejected).
- Codex CLI: its published JSON Schemas, vendored in schemas/codex/ (see SOURCE.md there).
- Gemini CLI: its documented output fields (docs/hooks/reference.md upstream).

Plus the rules every adapter output must keep: exit 0, JSON object, bounded text,
never a null value.
"""

from __future__ import annotations

import json
import types
import typing
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import typing_extensions
from helpers import SCHEMAS
from pydantic import ConfigDict, TypeAdapter

from orchestrator.render import agent_labels

CODEX_SCHEMAS = SCHEMAS / "codex"
PAYLOADS = Path(__file__).parent / "hosts_e2e" / "payloads"
CODEX_OUTPUT = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "user-prompt-submit",
    "PreToolUse": "pre-tool-use",
    "PostToolUse": "post-tool-use",
    "Stop": "stop",
}


def _convert(tp: Any, seen: dict[Any, Any]) -> Any:
    if typing_extensions.is_typeddict(tp):
        if tp not in seen:
            hints = typing.get_type_hints(tp)
            fields: dict[str, Any] = {}
            for key, hint in hints.items():
                inner = _convert(hint, seen)
                fields[key] = (
                    inner if key in tp.__required_keys__ else typing_extensions.NotRequired[inner]
                )
            rebuilt = typing_extensions.TypedDict(tp.__name__, fields)  # type: ignore[operator]
            rebuilt.__pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[attr-defined]
            seen[tp] = rebuilt
        return seen[tp]
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return typing.Union[tuple(_convert(a, seen) for a in args)]  # noqa: UP007
    if origin in (list, dict) and args:
        return origin[tuple(_convert(a, seen) for a in args)]
    return tp


@cache
def claude_adapter() -> TypeAdapter[Any]:
    from claude_agent_sdk.types import SyncHookJSONOutput

    return TypeAdapter(_convert(SyncHookJSONOutput, {}))


@cache
def codex_schema(event: str) -> dict[str, Any]:
    path = CODEX_SCHEMAS / f"{CODEX_OUTPUT[event]}.command.output.schema.json"
    return json.loads(path.read_text())


def _no_nulls(value: Any) -> None:
    assert value is not None, "null value in hook output"
    if isinstance(value, dict):
        for v in value.values():
            _no_nulls(v)
    elif isinstance(value, list):
        for v in value:
            _no_nulls(v)


def _common(code: int, out: bytes) -> dict[str, Any]:
    assert code == 0, "hooks answer with exit 0 and JSON in every host protocol"
    obj = json.loads(out.decode("utf-8"))
    assert isinstance(obj, dict)
    _no_nulls(obj)
    hso = obj.get("hookSpecificOutput") or {}
    for text in (
        hso.get("additionalContext"),
        hso.get("permissionDecisionReason"),
        obj.get("reason"),
    ):
        if text is not None:
            assert isinstance(text, str) and text.strip()
            assert len(text) <= agent_labels.CONTEXT_MAX_CHARS
    if "systemMessage" in obj:
        assert len(obj["systemMessage"]) <= agent_labels.MESSAGE_MAX_CHARS
    return obj


def check_claude(event: str, code: int, out: bytes) -> dict[str, Any]:
    """Validate one Claude Code adapter answer; returns the parsed object."""
    obj = _common(code, out)
    claude_adapter().validate_python(obj)
    hso = obj.get("hookSpecificOutput")
    if hso is not None:
        assert hso["hookEventName"] == event
        assert hso.get("permissionDecision") in (None, "deny"), "never allow/ask: no bypass"
    if obj.get("decision") is not None:
        assert event in ("Stop", "SubagentStop") and obj["decision"] == "block"
    return obj


def check_codex(event: str, code: int, out: bytes) -> dict[str, Any]:
    """Validate one Codex adapter answer against the published schema of its event."""
    obj = _common(code, out)
    if event in CODEX_OUTPUT:
        jsonschema.validate(obj, codex_schema(event))
    else:
        assert obj == {} or set(obj) <= {"systemMessage"}
    assert obj.get("suppressOutput") is not True
    hso = obj.get("hookSpecificOutput") or {}
    assert hso.get("permissionDecision") != "ask"
    return obj


GEMINI_TOP = {"systemMessage", "decision", "reason", "hookSpecificOutput"}


def check_gemini(event: str, code: int, out: bytes) -> dict[str, Any]:
    """Validate one Gemini CLI adapter answer against its documented fields."""
    obj = _common(code, out)
    assert set(obj) <= GEMINI_TOP
    if "decision" in obj:
        assert obj["decision"] == "deny" and event in ("BeforeTool", "AfterAgent")
        assert obj["reason"].strip()
    if "hookSpecificOutput" in obj:
        assert event in ("SessionStart", "BeforeAgent", "AfterTool")
        assert set(obj["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    return obj


def payload(host: str, name: str, **changes: Any) -> dict[str, Any]:
    """A recorded real payload of `host` (tests/hosts_e2e/payloads), with changes."""
    data = json.loads((PAYLOADS / host / f"{name}.json").read_text())
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return data


def encode(event: dict[str, Any]) -> bytes:
    return json.dumps(event).encode()


class RepairSpy:
    """Fake lint and verify use cases that record what an edit route asked for: the
    files fast-checked and the tasks re-checked (with the timeout each was given)."""

    def __init__(self, observation: str = "still_present") -> None:
        self.linted: list[tuple[str, ...]] = []
        self.verified: list[tuple[str, float]] = []
        self.observation = observation

    def services(self) -> Any:
        from orchestrator.hosts.router import Services
        from orchestrator.model.report import Report, ScanInfo
        from orchestrator.tasks.verify import VerifyResult
        from orchestrator.usecases.lint import LintResult

        def lint(root: Path, paths: Any, timeout: float) -> LintResult:
            self.linted.append(tuple(paths))
            return LintResult(Report(scan=ScanInfo(project_root=str(root))))

        def verify(root: Path, tid: str, timeout: float) -> VerifyResult:
            self.verified.append((tid, timeout))
            return VerifyResult(task_id=tid, outcome=self.observation, checker="ruff")

        return Services(lint=lint, verify=verify)
