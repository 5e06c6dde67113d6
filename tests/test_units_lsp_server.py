"""The language server's handlers (lsp/server.py) called directly, in process: a real
workspace over a real git repository, real Ruff, and a recording client in place of the
transport (what the server publishes, shows and logs). No editor, no server process:
tests/test_lsp.py drives `orchestrate lsp` end-to-end."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from helpers import new_repo
from lsprotocol import types
from pygls.workspace import Workspace

from orchestrator.lsp import server as lsp_server
from orchestrator.lsp.check import BufferCheck

BAD = "import os\n"


class Client:
    """What the server sent: diagnostics per publish, shown messages, log lines."""

    def __init__(self, server: lsp_server.OrchestrateServer) -> None:
        self.published: list[types.PublishDiagnosticsParams] = []
        self.shown: list[types.ShowMessageParams] = []
        self.logged: list[str] = []
        server.text_document_publish_diagnostics = self.published.append  # type: ignore[method-assign]
        server.window_show_message = self.shown.append  # type: ignore[method-assign]
        server.window_log_message = lambda p: self.logged.append(p.message)  # type: ignore[method-assign]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return new_repo(tmp_path / "r", {"a.py": "x = 1\n"}).resolve()


def _server(root: Path) -> tuple[lsp_server.OrchestrateServer, Client]:
    server = lsp_server.build_server()
    folder = types.WorkspaceFolder(uri=root.as_uri(), name="r")
    server.protocol._workspace = Workspace(root.as_uri(), workspace_folders=[folder])
    return server, Client(server)


def _feature(server: lsp_server.OrchestrateServer, name: str) -> Any:
    return server.protocol.fm.features[name]


def _open(server: lsp_server.OrchestrateServer, uri: str, text: str, version: int = 1) -> None:
    item = types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
    server.workspace.put_text_document(item)


def test_a_check_publishes_the_unsaved_buffers_findings_and_logs_the_route(
    project: Path,
) -> None:
    server, client = _server(project)
    uri = (project / "a.py").as_uri()
    _open(server, uri, BAD)  # on disk a.py is clean: the buffer is what is judged
    asyncio.run(lsp_server.check(server, uri))
    [published] = client.published
    assert published.uri == uri and published.version == 1
    assert [d.code for d in published.diagnostics] == ["ruff/F401"]
    assert client.shown == []  # nothing failed: no message box
    [note] = client.logged
    assert note.startswith("orchestrate: ") and "checking buffers of" in note
    asyncio.run(lsp_server.check(server, uri))
    assert len(client.logged) == 1  # the route is logged when it changes, not per check


def test_code_actions_offer_the_fix_of_the_checked_buffer(project: Path) -> None:
    server, _client = _server(project)
    uri = (project / "a.py").as_uri()
    _open(server, uri, BAD)
    code_action = _feature(server, types.TEXT_DOCUMENT_CODE_ACTION)
    whole = types.Range(start=types.Position(0, 0), end=types.Position(1, 0))
    params = types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=whole,
        context=types.CodeActionContext(diagnostics=[]),
    )
    assert code_action(params) == []  # not checked yet: nothing to offer
    asyncio.run(lsp_server.check(server, uri))
    actions = code_action(params)
    assert actions and all(a.kind == types.CodeActionKind.QuickFix for a in actions)
    edits = [e for a in actions for e in (a.edit.changes or {}).get(uri, [])]  # type: ignore[union-attr]
    assert edits and all(isinstance(e, types.TextEdit) for e in edits)


def test_only_the_newest_check_of_a_buffer_publishes(project: Path) -> None:
    server, client = _server(project)
    uri = (project / "a.py").as_uri()
    _open(server, uri, BAD)

    async def both() -> None:
        await asyncio.gather(lsp_server.check(server, uri), lsp_server.check(server, uri))

    asyncio.run(both())
    assert len(client.published) == 1
    assert server.buffers[uri].generation == 2


def test_a_failed_check_is_a_diagnostic_and_one_message_not_one_per_keystroke(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fake_check(root: Path, rel: str, text: str | None) -> BufferCheck:
        return BufferCheck(None, "fake fault", cold_reason="no warm engine runs")

    monkeypatch.setattr(lsp_server, "check_buffer", fake_check)
    server, client = _server(project)
    uri = (project / "a.py").as_uri()
    _open(server, uri, BAD)
    asyncio.run(lsp_server.check(server, uri))
    asyncio.run(lsp_server.check(server, uri))
    assert len(client.published) == 2
    [diagnostic] = client.published[0].diagnostics
    assert "fake fault" in diagnostic.message
    [shown] = client.shown  # the same failure is shown once
    assert shown.type == types.MessageType.Error
    assert shown.message == "orchestrate: the check of a.py failed: fake fault"


def test_an_untitled_buffer_is_checked_from_its_text_as_its_language(project: Path) -> None:
    server, client = _server(project)
    _open(server, "untitled:Untitled-1", BAD)
    asyncio.run(lsp_server.check(server, "untitled:Untitled-1"))
    [published] = client.published
    assert published.uri == "untitled:Untitled-1"
    assert [d.code for d in published.diagnostics] == ["ruff/F401"]
    assert server.buffers["untitled:Untitled-1"].rel == "Untitled-1.py"
    assert not (project / "Untitled-1.py").exists()  # nothing written


def test_untitled_names_take_the_extension_of_the_language_id() -> None:
    assert lsp_server.untitled_rel("untitled:Untitled-1", "python") == "Untitled-1.py"
    assert lsp_server.untitled_rel("untitled:Untitled-2", "typescriptreact") == "Untitled-2.tsx"
    assert lsp_server.untitled_rel("untitled:../../etc/x", "plaintext") == "x"
    assert lsp_server.untitled_rel("untitled:", None) == "untitled"


def test_a_buffer_outside_every_project_is_not_checked(project: Path) -> None:
    server, client = _server(project)
    _open(server, "vscode-notebook-cell:/x#1", BAD)
    asyncio.run(lsp_server.check(server, "vscode-notebook-cell:/x#1"))
    assert client.published == [] and client.logged == []


def test_a_never_saved_file_is_checked_from_its_text(project: Path) -> None:
    server, client = _server(project)
    uri = (project / "new" / "b.py").as_uri()  # neither the file nor its folder exists
    _open(server, uri, BAD)
    asyncio.run(lsp_server.check(server, uri))
    [published] = client.published
    assert [d.code for d in published.diagnostics] == ["ruff/F401"]
    assert not (project / "new").exists()


def test_a_burst_of_changes_checks_and_publishes_the_newest_text_only(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, client = _server(project)
    uri = (project / "a.py").as_uri()
    _open(server, uri, "x = 1\n")
    texts: list[str] = []
    real = lsp_server.check_buffer

    def recording(root: Path, rel: str, text: str | None) -> BufferCheck:
        texts.append(text or "")
        return real(root, rel, text)

    async def burst() -> None:
        lsp_server._schedule(server, uri)  # the open: runs at once
        for n in range(2, 22):
            _open(server, uri, f"import os{n}\n" if n == 21 else f"x = {n}\n", version=n)
            lsp_server._schedule(server, uri)
            await asyncio.sleep(0)
        runner = server.buffers[uri].runner
        assert runner is not None
        await runner

    monkeypatch.setattr(lsp_server, "check_buffer", recording)
    asyncio.run(burst())
    assert texts[-1] == "import os21\n" and len(texts) <= 3  # coalesced, not 21 runs
    versions = [p.version for p in client.published]
    assert versions[-1] == 21 and versions == sorted(versions)
    assert [d.code for d in client.published[-1].diagnostics] == ["ruff/F401"]


def test_closing_a_buffer_clears_its_diagnostics_and_state(project: Path) -> None:
    server, client = _server(project)
    uri = (project / "a.py").as_uri()
    _open(server, uri, BAD)
    asyncio.run(lsp_server.check(server, uri))
    did_close = _feature(server, types.TEXT_DOCUMENT_DID_CLOSE)
    did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    assert uri not in server.buffers
    assert client.published[-1].diagnostics == []


def test_open_and_save_schedule_a_check_that_publishes(project: Path) -> None:
    server, client = _server(project)
    uri = (project / "a.py").as_uri()
    _open(server, uri, BAD)
    did_open = _feature(server, types.TEXT_DOCUMENT_DID_OPEN)
    did_save = _feature(server, types.TEXT_DOCUMENT_DID_SAVE)
    item = types.TextDocumentItem(uri=uri, language_id="python", version=1, text=BAD)

    async def events() -> None:
        did_open(types.DidOpenTextDocumentParams(text_document=item))
        opened = server.buffers[uri].runner
        assert opened is not None
        await opened
        did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
        saved = server.buffers[uri].runner
        assert saved is not None and saved is not opened
        await saved

    asyncio.run(events())
    assert len(client.published) == 2
    assert all([d.code for d in p.diagnostics] == ["ruff/F401"] for p in client.published)


def test_serve_is_resident_and_preloads_in_the_background(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from orchestrator.resident import is_resident

    seen: dict[str, bool] = {}

    class FakeServer:
        """Stands in for the pygls server: records the process state while serving."""

        def start_io(self, stdin: Any, stdout: Any) -> None:
            seen["resident"] = is_resident()

    monkeypatch.setattr(lsp_server, "build_server", FakeServer)
    monkeypatch.setattr(lsp_server, "preload", lambda: seen.setdefault("preloaded", True))
    assert lsp_server.serve() == 0
    assert seen["resident"] is True  # the ESLint worker may stay warm while it serves
    assert not is_resident()  # and ends with it
    for thread in lsp_server.threading.enumerate():
        if thread.name == "orchestrate-preload":
            thread.join(10)
    assert seen.get("preloaded") is True
