"""`orchestrate lsp` end to end: a real LSP client over stdio (pytest-lsp) and headless
Neovim attach the real server; real Ruff and tree-sitter judge the buffers."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from helpers import VENV_BIN, eslint_path, fail_or_skip, new_repo, run_cli, set_machine_tool
from lsprotocol import types
from pytest_lsp.client import LanguageClient, client_capabilities, make_test_lsp_client

#: Every test here runs orchestrate as a user does (README "Tests").
pytestmark = pytest.mark.e2e

HERE = Path(__file__).resolve().parent
WAIT_S = 90.0  # a cold first check (plugin load, Ruff start) on a busy machine
CLEAN = "x = 1\n"
UNUSED_IMPORT = "import os\n\nx = 1\n"


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    """A committed git project holding `files`."""
    root = new_repo(tmp_path / "proj", files)
    subprocess.run(["git", "commit", "-qm", "files"], cwd=root, check=True, capture_output=True)
    return root


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the project (outside .git) with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


class Session:
    """One running `orchestrate lsp` with a pytest-lsp client attached."""

    def __init__(self, client: LanguageClient, root: Path) -> None:
        self.client = client
        self.root = root
        self.versions: dict[str, int] = {}
        #: Every publishDiagnostics the server sent, in order.
        self.published: list[types.PublishDiagnosticsParams] = []
        #: The position encoding the server chose (LSP's default when it names none).
        self.encoding = "utf-16"

    def uri(self, rel: str) -> str:
        return (self.root / rel).as_uri()

    def open(self, rel: str, text: str, language: str = "python") -> str:
        uri = rel if rel.startswith("untitled:") else self.uri(rel)
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=language, version=1, text=text
                )
            )
        )
        return uri

    def change(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    async def diagnostics(
        self, uri: str, until: Callable[[Sequence[types.Diagnostic]], bool]
    ) -> Sequence[types.Diagnostic]:
        """The buffer's published diagnostics once `until` holds for them."""
        loop = asyncio.get_running_loop()
        end = loop.time() + WAIT_S
        while loop.time() < end:
            got = self.client.diagnostics.get(uri)
            if got is not None and until(got):
                return got
            await asyncio.sleep(0.1)
        raise AssertionError(f"no such diagnostics for {uri}: {self.client.diagnostics.get(uri)}")


def _run(
    root: Path,
    body: Callable[[Session], Awaitable[Any]],
    env: dict[str, str] | None = None,
    encodings: Sequence[str] = (),
) -> Any:
    """Start the real server in `root` (`env` laid over ours), initialise a client
    session (offering the position `encodings`, when given), run `body`, shut down."""
    capabilities = client_capabilities("visual-studio-code")
    if encodings:
        capabilities.general = types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind(e) for e in encodings]
        )

    async def main() -> Any:
        client = make_test_lsp_client()
        published: list[types.PublishDiagnosticsParams] = []
        features = client.protocol.fm.features
        store = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

        def record(params: types.PublishDiagnosticsParams) -> None:
            published.append(params)
            store(params)

        features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record
        await client.start_io(
            str(VENV_BIN / "orchestrate"), "lsp", cwd=str(root), env={**os.environ, **(env or {})}
        )
        try:
            init = await client.initialize_session(
                types.InitializeParams(
                    capabilities=capabilities,
                    root_uri=root.as_uri(),
                    workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="proj")],
                )
            )
            session = Session(client, root)
            session.published = published
            session.encoding = init.capabilities.position_encoding or "utf-16"
            result = await body(session)
            await client.shutdown_session()
            return result
        finally:
            await client.stop()

    return asyncio.run(main())


def _codes(diags: Sequence[types.Diagnostic]) -> set[str]:
    return {str(d.code) for d in diags}


def _has_f401(diags: Sequence[types.Diagnostic]) -> bool:
    return any(str(d.code).endswith("F401") for d in diags)


def _apply(text: str, edits: Sequence[types.TextEdit]) -> str:
    """Apply LSP text edits (ASCII text: characters are UTF-16 units) to `text`."""
    lines = text.splitlines(keepends=True)

    def offset(p: types.Position) -> int:
        return sum(len(ln) for ln in lines[: p.line]) + p.character

    spans = sorted((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits)
    for start, end, new in reversed(spans):
        text = text[:start] + new + text[end:]
    return text


def test_unsaved_buffer_shows_f401_and_nothing_is_written(tmp_path: Path) -> None:
    root = _project(tmp_path, {"a.py": CLEAN})
    before = _snapshot(root)

    async def body(s: Session) -> None:
        uri = s.open("a.py", CLEAN)
        clean = await s.diagnostics(uri, lambda d: True)
        assert not _has_f401(clean)
        s.change(uri, UNUSED_IMPORT)  # typed, not saved: the disk still holds CLEAN
        diags = await s.diagnostics(uri, _has_f401)
        f401 = next(d for d in diags if str(d.code).endswith("F401"))
        assert f401.severity == types.DiagnosticSeverity.Error
        assert f401.range.start.line == 0
        assert not any(d.code == "coverage" for d in diags), diags
        s.change(uri, CLEAN)
        await s.diagnostics(uri, lambda d: not _has_f401(d))

    _run(root, body)
    assert (root / "a.py").read_text() == CLEAN
    assert _snapshot(root) == before  # no cache, journal, task store or temp file


def test_never_saved_and_untitled_buffers_are_linted_from_their_text(tmp_path: Path) -> None:
    root = _project(tmp_path, {"a.py": CLEAN})
    before = _snapshot(root)

    async def body(s: Session) -> None:
        new = s.open("pkg/new.py", UNUSED_IMPORT)  # neither the file nor pkg/ exists
        assert _has_f401(await s.diagnostics(new, _has_f401))
        untitled = s.open("untitled:Untitled-1", UNUSED_IMPORT)
        diags = await s.diagnostics(untitled, _has_f401)
        assert not any(d.code == "coverage" for d in diags), diags

    _run(root, body)
    assert _snapshot(root) == before  # judged from the text: nothing written


def test_a_burst_of_changes_publishes_the_last_text_only(tmp_path: Path) -> None:
    root = _project(tmp_path, {"a.py": CLEAN})

    async def body(s: Session) -> list[types.PublishDiagnosticsParams]:
        uri = s.open("a.py", CLEAN)
        await s.diagnostics(uri, lambda d: True)
        seen = len(s.published)
        for n in range(2, 21):
            s.change(uri, f"x = {n}\n")
        s.change(uri, UNUSED_IMPORT)  # the 20th change, version 21
        await s.diagnostics(uri, _has_f401)
        await asyncio.sleep(1.0)  # nothing older may follow
        return [p for p in s.published[seen:] if p.uri == uri]

    burst = _run(root, body)
    versions = [p.version for p in burst]
    # The last text is what shows; nothing older follows anything newer; the burst
    # coalesced (the check of the first change may still publish if it finished before
    # the next change was read, every other one is superseded).
    assert versions[-1] == 21 and versions == sorted(versions), versions
    assert len(versions) <= 2, versions
    assert _has_f401(burst[-1].diagnostics)
    assert all(not _has_f401(p.diagnostics) for p in burst[:-1])


def test_syntax_only_file_gets_one_coverage_note(tmp_path: Path) -> None:
    root = _project(tmp_path, {"main.go": "package main\n\nfunc main() {}\n"})

    async def body(s: Session) -> Sequence[types.Diagnostic]:
        uri = s.open("main.go", "package main\n\nfunc main() {}\n", "go")
        return await s.diagnostics(uri, lambda d: bool(d))

    diags = _run(root, body)
    notes = [d for d in diags if d.code == "coverage"]
    assert len(notes) == 1, diags
    note = notes[0]
    assert note.severity == types.DiagnosticSeverity.Information
    assert note.range.start.line == 0
    assert "syntax only" in note.message


def test_missing_native_checker_note_says_what_to_do(tmp_path: Path) -> None:
    set_machine_tool("ruff", "/nonexistent/ruff")
    root = _project(tmp_path, {"a.py": CLEAN})

    async def body(s: Session) -> Sequence[types.Diagnostic]:
        uri = s.open("a.py", CLEAN)
        return await s.diagnostics(uri, lambda d: bool(d))

    diags = _run(root, body)
    notes = [d for d in diags if d.code == "coverage"]
    assert len(notes) == 1, diags
    assert "ruff: missing" in notes[0].message
    assert "install" in notes[0].message or "[tools]" in notes[0].message


def test_code_action_applies_the_auto_tier_fix(tmp_path: Path) -> None:
    root = _project(tmp_path, {"a.py": CLEAN})

    async def body(s: Session) -> tuple[list[Any], str]:
        uri = s.open("a.py", UNUSED_IMPORT)
        diags = await s.diagnostics(uri, _has_f401)
        f401 = next(d for d in diags if str(d.code).endswith("F401"))
        actions = await s.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=f401.range,
                context=types.CodeActionContext(diagnostics=[f401]),
            )
        )
        return list(actions or []), uri

    actions, uri = _run(root, body)
    fix = next(a for a in actions if "F401" in a.title)
    assert fix.is_preferred is True
    assert fix.kind == types.CodeActionKind.QuickFix
    fixed = _apply(UNUSED_IMPORT, fix.edit.changes[uri])
    assert fixed == "\nx = 1\n" or fixed == CLEAN, fixed
    assert (root / "a.py").read_text() == CLEAN  # the editor applies it, not the server


def test_confirm_tier_fix_is_a_separate_labelled_action(tmp_path: Path) -> None:
    # Ruff's F841 fix (drop an unused local) is "unsafe": it may change behaviour.
    source = "def f():\n    y = g()\n    return 1\n"
    root = _project(tmp_path, {"a.py": source})

    async def body(s: Session) -> list[Any]:
        uri = s.open("a.py", source)
        diags = await s.diagnostics(uri, lambda d: any("F841" in str(x.code) for x in d))
        f841 = next(d for d in diags if "F841" in str(d.code))
        actions = await s.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=f841.range,
                context=types.CodeActionContext(diagnostics=[f841]),
            )
        )
        return list(actions or [])

    actions = _run(root, body)
    unsafe = [a for a in actions if "F841" in a.title]
    assert unsafe, actions
    assert all(not a.is_preferred for a in unsafe)
    assert all("confirm tier" in a.title for a in unsafe)


def test_server_survives_a_crashing_tool_and_says_so(tmp_path: Path) -> None:
    fake = tmp_path / "fake_ruff"
    fake.write_text(
        "#!/bin/sh\n"
        'case "$1" in --version|version) echo "ruff 0.14.0"; exit 0;; esac\n'
        'echo "fake ruff crashed" >&2\n'
        "kill -SEGV $$\n"
    )
    fake.chmod(0o755)
    set_machine_tool("ruff", str(fake))
    root = _project(tmp_path, {"a.py": CLEAN, "main.go": "package main\n"})

    async def body(s: Session) -> tuple[Sequence[types.Diagnostic], Sequence[types.Diagnostic]]:
        uri = s.open("a.py", UNUSED_IMPORT)
        crashed = await s.diagnostics(uri, lambda d: bool(d))
        # still serving: another buffer gets its diagnostics from the same process
        other = await s.diagnostics(s.open("main.go", "package main\n", "go"), lambda d: bool(d))
        return crashed, other

    crashed, other = _run(root, body)
    notes = [d for d in crashed if d.code == "coverage"]
    assert len(notes) == 1 and "ruff: tool_error" in notes[0].message, crashed
    assert "SIGSEGV" in notes[0].message
    assert any(d.code == "coverage" and "syntax only" in d.message for d in other)


def test_server_shows_a_message_for_a_crashing_tool(tmp_path: Path) -> None:
    fake = tmp_path / "fake_ruff"
    fake.write_text("#!/bin/sh\necho crashed >&2\nexit 70\n")
    fake.chmod(0o755)
    set_machine_tool("ruff", str(fake))
    root = _project(tmp_path, {"a.py": CLEAN})

    async def body(s: Session) -> list[types.ShowMessageParams]:
        uri = s.open("a.py", CLEAN)
        await s.diagnostics(uri, lambda d: bool(d))
        for _ in range(100):
            if s.client.messages:
                break
            await asyncio.sleep(0.1)
        return list(s.client.messages)

    messages = _run(root, body)
    assert any(
        m.type == types.MessageType.Warning and "ruff" in m.message and "a.py" in m.message
        for m in messages
    ), messages


def test_diagnostics_are_the_cli_report(tmp_path: Path) -> None:
    """CG-12: the editor shows the findings `orchestrate lint --feedback` reports."""
    source = "import os\nimport sys\n\n\ndef f():\n    y = 1\n    return 2\n"
    root = _project(tmp_path, {"a.py": source})
    cli = run_cli(["lint", "--feedback", "--no-tasks", "--format", "json", "a.py"], cwd=root)
    report = json.loads(cli.stdout)
    want = sorted((f["rule"], f["line"] - 1) for f in report["findings"])

    async def body(s: Session) -> Sequence[types.Diagnostic]:
        uri = s.open("a.py", source)
        return await s.diagnostics(uri, lambda d: bool(d))

    diags = _run(root, body)
    got = sorted(
        (str(d.code).split("/")[-1], d.range.start.line) for d in diags if d.code != "coverage"
    )
    assert got == want and want


def _neovim(tmp_path: Path, root: Path, mode: str = "") -> dict[str, Any]:
    """Run tests/lsp_nvim.lua in headless Neovim against `root`; what the editor showed."""
    nvim = shutil.which("nvim")
    if nvim is None:
        fail_or_skip("nvim is required for this test: apt-get install neovim (./run setup)")
    out = tmp_path / "nvim.json"
    env = {
        **os.environ,
        "ORCHESTRATE_LSP_CMD": str(VENV_BIN / "orchestrate"),
        "LSP_ROOT": str(root),
        "LSP_OUT": str(out),
        "LSP_MODE": mode,
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    script = HERE / "lsp_nvim.lua"
    done = subprocess.run(
        [str(nvim), "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {script}"],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.exists(), (done.returncode, done.stdout, done.stderr)
    got = json.loads(out.read_text())
    assert "error" not in got, got
    return got


def _rows(rows: Sequence[dict[str, Any]], code: str) -> list[dict[str, Any]]:
    return [r for r in rows if str(r.get("code", "")).endswith(code)]


def test_neovim_shows_unsaved_f401_fixes_it_and_notes_syntax_only(tmp_path: Path) -> None:
    root = _project(tmp_path, {"a.py": CLEAN, "main.go": "package main\n"})
    got = _neovim(tmp_path, root)
    assert got["modified"] is True  # the buffer was never written
    f401 = _rows(got["unsaved"], "F401")
    assert f401 and f401[0]["lnum"] == 0 and f401[0]["severity"] == 1, got  # ERROR
    assert "F401" in got["action"]
    assert got["fixed"] in (["", "x = 1"], ["x = 1"]), got["fixed"]
    notes = _rows(got["go"], "coverage")
    assert len(notes) == 1 and notes[0]["lnum"] == 0 and "syntax only" in notes[0]["message"]
    assert notes[0]["severity"] == 3  # INFO
    assert (root / "a.py").read_text() == CLEAN


def test_neovim_survives_a_crashing_tool_and_says_so(tmp_path: Path) -> None:
    fake = tmp_path / "fake_ruff"
    fake.write_text("#!/bin/sh\necho fake ruff crashed >&2\nkill -SEGV $$\n")
    fake.chmod(0o755)
    set_machine_tool("ruff", str(fake))
    root = _project(tmp_path, {"a.py": CLEAN, "main.go": "package main\n"})
    got = _neovim(tmp_path, root, "crash")
    notes = _rows(got["crashed"], "coverage")
    assert len(notes) == 1 and "ruff: tool_error" in notes[0]["message"], got
    assert any("ruff" in m["message"] and m["type"] == 2 for m in got["messages"]), got  # Warning
    assert got["alive"] is True
    assert _rows(got["go"], "coverage"), got


def test_a_failed_run_is_shown_and_the_server_goes_on(tmp_path: Path) -> None:
    # An unusable project configuration: the lint use case refuses the run (a usage error).
    root = _project(
        tmp_path,
        {"a.py": CLEAN, "main.go": "package main\n", "pyproject.toml": "[tool]\norchestrate = 1\n"},
    )

    async def body(s: Session) -> tuple[Sequence[types.Diagnostic], list[Any]]:
        uri = s.open("a.py", UNUSED_IMPORT)
        diags = await s.diagnostics(uri, lambda d: bool(d))
        for _ in range(100):
            if s.client.messages:
                break
            await asyncio.sleep(0.1)
        (s.root / "pyproject.toml").write_text("")  # repaired: the next check runs
        s.change(uri, UNUSED_IMPORT + "\n")
        await s.diagnostics(uri, _has_f401)
        return diags, list(s.client.messages)

    diags, messages = _run(root, body)
    assert [d.code for d in diags] == ["coverage"], diags
    assert "not checked: the run failed" in diags[0].message
    assert "tool.orchestrate: want a table" in diags[0].message
    assert any(m.type == types.MessageType.Error and "a.py" in m.message for m in messages)


def test_unsaved_javascript_buffer_goes_to_eslint_on_stdin(tmp_path: Path) -> None:
    eslint_path()  # the managed ESLint (tools/eslint) must be installed
    config = 'export default [{ rules: { "no-unused-vars": "error" } }];\n'
    root = _project(tmp_path, {"eslint.config.js": config, "a.js": "console.log(1);\n"})

    async def body(s: Session) -> Sequence[types.Diagnostic]:
        uri = s.open("a.js", "console.log(1);\n", "javascript")
        clean = await s.diagnostics(uri, lambda d: True)
        assert not any("no-unused-vars" in str(d.code) for d in clean), clean
        s.change(uri, "const unused = 1;\nconsole.log(1);\n")
        return await s.diagnostics(uri, lambda d: any("no-unused-vars" in str(x.code) for x in d))

    diags = _run(root, body)
    hit = next(d for d in diags if "no-unused-vars" in str(d.code))
    assert hit.severity == types.DiagnosticSeverity.Error and hit.range.start.line == 0
    assert (root / "a.js").read_text() == "console.log(1);\n"


#: Byte width of one position unit of each LSP position encoding.
_UNIT_CODEC = {"utf-16": "utf-16-le", "utf-8": "utf-8", "utf-32": "utf-32-le"}


def _units_slice(line: str, start: int, end: int, encoding: str) -> str:
    """The text of `line` between two character positions counted in `encoding`."""
    codec = _UNIT_CODEC[encoding]
    width = {"utf-16": 2, "utf-8": 1, "utf-32": 4}[encoding]
    return line.encode(codec)[start * width : end * width].decode(codec)


def _apply_units(text: str, edits: Sequence[types.TextEdit], encoding: str) -> str:
    """Apply LSP text edits whose characters count in `encoding` to `text`."""
    lines = text.splitlines(keepends=True)

    def offset(p: types.Position) -> int:
        head = sum(len(ln) for ln in lines[: p.line])
        return head + len(_units_slice(lines[p.line], 0, p.character, encoding))

    spans = sorted((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits)
    for start, end, new in reversed(spans):
        text = text[:start] + new + text[end:]
    return text


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-8"])
def test_ranges_after_an_emoji_point_at_the_flagged_text(tmp_path: Path, encoding: str) -> None:
    """Ruff counts code points, ESLint UTF-16 units; an astral character before the
    finding on its line tells them apart. Either way the range the client gets, in the
    encoding it negotiated (UTF-16 when it offers none), covers the flagged name, and
    the code action's edit removes exactly the flagged import."""
    eslint_path()  # the managed ESLint (tools/eslint) must be installed
    config = 'export default [{ rules: { "no-unused-vars": "error" } }];\n'
    py = 'x = "\U0001f600\U0001f600"; import os\n'
    js = 'console.log("\U0001f600\U0001f600"); const unused = 1;\n'
    root = _project(tmp_path, {"eslint.config.js": config, "a.py": CLEAN, "a.js": "\n"})

    async def body(s: Session) -> tuple[Any, ...]:
        py_uri = s.open("a.py", CLEAN)
        js_uri = s.open("a.js", "\n", "javascript")
        await s.diagnostics(py_uri, lambda d: True)
        await s.diagnostics(js_uri, lambda d: True)
        s.change(py_uri, py)  # unsaved: the ranges are read against the buffer
        s.change(js_uri, js)
        py_diags = await s.diagnostics(py_uri, _has_f401)
        js_diags = await s.diagnostics(
            js_uri, lambda d: any("no-unused-vars" in str(x.code) for x in d)
        )
        f401 = next(d for d in py_diags if str(d.code).endswith("F401"))
        actions = await s.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=py_uri),
                range=f401.range,
                context=types.CodeActionContext(diagnostics=[f401]),
            )
        )
        negotiated = s.encoding
        return f401, js_diags, list(actions or []), py_uri, negotiated

    offered = [encoding] if encoding != "utf-16" else []
    f401, js_diags, actions, py_uri, negotiated = _run(root, body, encodings=offered)
    assert negotiated == encoding
    unused = next(d for d in js_diags if "no-unused-vars" in str(d.code))
    for diag, line, name in ((f401, py, "os"), (unused, js, "unused")):
        assert diag.range.start.line == diag.range.end.line == 0
        got = _units_slice(line, diag.range.start.character, diag.range.end.character, encoding)
        assert got == name, (diag.range, got)
    fix = next(a for a in actions if "F401" in a.title)
    fixed = _apply_units(py, fix.edit.changes[py_uri], encoding)
    assert "import os" not in fixed and fixed.startswith('x = "\U0001f600\U0001f600"'), fixed


def test_overlay_judges_the_given_bytes_and_keeps_selection_refusals(tmp_path: Path) -> None:
    """The use-case overlay: a selected file is judged from the overlay, never from the
    disk; what selection refuses stays refused whatever the overlay holds."""
    from orchestrator.core.engine import LintRequest
    from orchestrator.usecases.lint import NO_TASKS, lint, with_overlay

    root = _project(tmp_path, {"a.py": CLEAN})
    outside = tmp_path / "outside.py"
    outside.write_text(CLEAN)
    (root / "link.py").symlink_to(outside)
    req = LintRequest(project_root=root, paths=("a.py", "link.py"), cwd=root, paths_named=True)
    overlay = {"a.py": UNUSED_IMPORT.encode(), "link.py": b"import os\n", "b.py": b"import os\n"}
    report = lint(with_overlay(req, overlay), NO_TASKS).report
    assert {f.rule for f in report.findings if f.path == "a.py"} >= {"F401"}
    assert not [f for f in report.findings if f.path != "a.py"], report.findings
    link = [s for s in report.scopes if s.path == "link.py"]
    assert link and all(s.status == "unsafe" for s in link), link
    assert (root / "a.py").read_text() == CLEAN and not (root / "b.py").exists()


# --- the warm engine ------------------------------------------------------------------

WARM_SOURCE = "import os\nimport sys\n\n\ndef f(x):\n    y = 1\n    return x == None\n"


class Engine:
    """A private runtime folder for one project's warm engine, and its clients' env."""

    def __init__(self, root: Path, runtime: Path) -> None:
        self.root = root
        self.env = {
            "XDG_RUNTIME_DIR": str(runtime),
            "XDG_CACHE_HOME": str(runtime / "cache"),
            # Reuse marks a second run `reused`: off, so each check really runs.
            "ORCHESTRATE_REUSE": "0",
            # The suite runs with the engine off (conftest.py): these clients use it.
            "ORCHESTRATE_SERVER": "1",
            "CI": "",
        }
        self.pids: set[int] = set()

    @property
    def socket(self) -> Path:
        from orchestrator.server.protocol import runtime_paths

        return runtime_paths(self.root, Path(self.env["XDG_RUNTIME_DIR"]) / "orchestrate").socket

    def cli(self, *args: str, extra: dict[str, str] | None = None) -> Any:
        return run_cli(list(args), self.root, env={**self.env, **(extra or {})}, timeout=180)

    def start(self, extra: dict[str, str] | None = None) -> dict[str, Any]:
        out = self.cli("server", "start", "--format", "json", extra=extra)
        assert out.returncode == 0, out.stderr
        info = json.loads(out.stdout)
        self.pids.add(int(info["pid"]))
        return info

    def status(self) -> dict[str, Any]:
        info = json.loads(self.cli("server", "status", "--format", "json").stdout)
        if "pid" in info:
            self.pids.add(int(info["pid"]))
        return info


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    # A short runtime folder of mode 0700 (socket paths are limited to 107 bytes).
    runtime = Path(tempfile.mkdtemp(prefix="ol-", dir="/tmp"))
    eng = Engine(_project(tmp_path, {"a.py": CLEAN}), runtime)
    try:
        yield eng
    finally:
        eng.cli("server", "stop")
        for pid in eng.pids:  # only the engines this test started, by their pid
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(runtime, ignore_errors=True)


def _logged(client: LanguageClient, words: str) -> list[str]:
    return [m.message for m in client.log_messages if words in m.message]


async def _fresh(s: Session, uri: str, text: str) -> Sequence[types.Diagnostic]:
    """The diagnostics of a new check of `uri` holding `text` (the last ones dropped)."""
    s.client.diagnostics.pop(uri, None)
    s.change(uri, text)
    return await s.diagnostics(uri, lambda d: True)


def test_warm_engine_shows_the_same_diagnostics_as_in_process(engine: Engine) -> None:
    """CG-12: an unsaved buffer checked by the warm engine and in the server's own
    process gives the same diagnostics, and the log says which way each went."""
    engine.start()

    async def body(s: Session) -> tuple[Any, Any, list[str], list[str]]:
        uri = s.open("a.py", WARM_SOURCE)  # unsaved: the disk holds CLEAN
        warm = await s.diagnostics(uri, _has_f401)
        assert _logged(s.client, "checked by its warm engine"), s.client.log_messages
        assert engine.status()["served"] == 1
        assert engine.cli("server", "stop").returncode == 0
        cold = await _fresh(s, uri, WARM_SOURCE)
        before = len(s.client.log_messages)
        again = await _fresh(s, uri, WARM_SOURCE)
        assert again == cold
        assert len(s.client.log_messages) == before  # said once, not per check
        return warm, cold, _logged(s.client, "in-process"), [m.message for m in s.client.messages]

    warm, cold, logged, shown = _run(engine.root, body, engine.env)
    assert warm == cold and _codes(warm) >= {"ruff/F401", "ruff/F841"}, warm
    assert len(logged) == 1 and "no warm engine running" in logged[0], logged
    assert not shown  # nothing pops up in the editor for the fallback
    assert not engine.socket.exists()  # the server started no engine of its own
    assert (engine.root / "a.py").read_text() == CLEAN


def test_stale_or_malformed_engine_falls_back_and_starts_none(engine: Engine) -> None:
    """A stale engine (its code changed on disk: fault-injected) exits and the buffer is
    checked in-process; the language server never starts an engine itself (no
    start-stop flapping). A fake engine answering garbage is never trusted."""
    version = engine.root.parent / "fake-version"
    version.write_text("1")
    fault = {"ORCHESTRATE_FAULT_VERSION_FILE": str(version)}
    engine.start(fault)
    version.write_text("2")

    async def stale(s: Session) -> Sequence[types.Diagnostic]:
        uri = s.open("a.py", UNUSED_IMPORT)
        got = await s.diagnostics(uri, _has_f401)
        assert _logged(s.client, "stale: the version changed"), s.client.log_messages
        return got

    assert _has_f401(_run(engine.root, stale, {**engine.env, **fault}))
    time.sleep(1.0)  # the stale engine is on its way out; nothing else may come up
    assert "pid" not in engine.status() and not engine.socket.exists()

    garbage = struct.pack(">I", 9) + b"not json!"
    thread = _fake_engine(engine.socket, garbage)

    async def malformed(s: Session) -> Sequence[types.Diagnostic]:
        uri = s.open("a.py", UNUSED_IMPORT)
        got = await s.diagnostics(uri, _has_f401)
        assert _logged(s.client, "answered something malformed"), s.client.log_messages
        return got

    assert _has_f401(_run(engine.root, malformed, engine.env))
    thread.join(30)


def _fake_engine(path: Path, answer: bytes) -> threading.Thread:
    """A fake engine on the socket (fault injection): reads one request, answers bytes."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)

    def serve() -> None:
        with server:
            conn, _ = server.accept()
            with conn:
                (size,) = struct.unpack(">I", conn.recv(4))
                got = 0
                while got < size:
                    got += len(conn.recv(min(size - got, 1 << 20)))
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


def test_buffer_requests_are_validated_strictly(monkeypatch: pytest.MonkeyPatch) -> None:
    """The buffer field: bounded, base64, a relative path, exact keys; the check's
    deadline is the feedback route's."""
    monkeypatch.setenv("ORCHESTRATE_SERVER", "1")  # the suite runs with it off
    from orchestrator.deadline import FEEDBACK_DEADLINE_S
    from orchestrator.server.protocol import (
        MAX_BUFFER,
        MAX_BUFFER_REQUEST,
        ProtocolError,
        buffer_request,
        validate_request,
    )

    assert MAX_BUFFER == 16 << 20  # the largest max_parse_bytes a configuration may set

    def req(**over: Any) -> dict[str, Any]:
        return {**buffer_request("/p", "a.py", b"import os\n", 20.0, {}, 22.0), **over}

    assert validate_request(req())["content"] == b"import os\n"
    full = req(content=base64.b64encode(b"x" * MAX_BUFFER).decode())
    assert len(json.dumps(full)) < MAX_BUFFER_REQUEST
    assert len(validate_request(full)["content"]) == MAX_BUFFER
    bad = [
        req(content=base64.b64encode(b"x" * (MAX_BUFFER + 1)).decode()),
        req(content="***"),
        req(content=1),
        req(path="/etc/passwd"),
        req(path=""),
        req(path="a\0.py"),
        req(extra=1),
        req(timeout=0.0),
        {k: v for k, v in req().items() if k != "content"},
    ]
    for obj in bad:
        with pytest.raises(ProtocolError):
            validate_request(obj)
    # The client never sends what the engine would refuse: such a buffer stays in-process.
    from orchestrator.server.client import buffer_lint

    over = buffer_lint(Path("/"), "a.py", b"x" * (MAX_BUFFER + 1), FEEDBACK_DEADLINE_S)
    assert over.check is None and "size cap" in over.reason
