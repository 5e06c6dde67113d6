"""The language server: buffer events -> checks -> diagnostics, code actions on request.

Open and save check at once; a change checks the unsaved text after a short pause
(DEBOUNCE_S, a newer change restarts it). Each check runs in a worker thread so the
server keeps answering; only the newest check of a buffer publishes. A check that
fails (a crashing tool, an internal fault) is reported, never fatal. A check goes to
the project's warm engine when one runs (lsp/check.py); which way checks go, and why
not warm, is one `window/logMessage` each time it changes.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from orchestrator import __version__
from orchestrator.lsp.actions import code_actions
from orchestrator.lsp.check import check_buffer
from orchestrator.lsp.diagnostics import buffer_diagnostics, failed_of, fault_diagnostic
from orchestrator.model.report import Report
from orchestrator.safetext import printable
from orchestrator.usecases.editor import BufferCheck
from orchestrator.usecases.requests import project_root

#: Seconds a change waits for the next keystroke before the buffer is checked.
DEBOUNCE_S = 0.3


@dataclass
class _Buffer:
    """What the server knows of one open buffer: its newest check and its result."""

    generation: int = 0
    pending: asyncio.Task[None] | None = None
    report: Report | None = None
    rel: str = ""
    root: Path | None = None
    shown: str = ""  # the last failure message shown for it (not repeated per keystroke)


class OrchestrateServer(LanguageServer):
    """pygls server holding the per-buffer state."""

    def __init__(self) -> None:
        super().__init__("orchestrate", __version__)
        self.buffers: dict[str, _Buffer] = {}
        #: Per project root, the last word logged about the warm engine.
        self.engine_notes: dict[Path, str] = {}


def locate(server: LanguageServer, uri: str) -> tuple[Path, str] | None:
    """(project root, project-relative path) of a file buffer: the deepest workspace
    folder holding it, else its git top level; None for a non-file buffer or a file
    outside every root."""
    raw = to_fs_path(uri) if uri.startswith("file:") else None
    if not raw:
        return None
    path = Path(raw).resolve()
    folders = [
        Path(p).resolve()
        for p in (to_fs_path(f.uri) for f in server.workspace.folders.values())
        if p
    ]
    inside = [f for f in folders if path.is_relative_to(f)]
    root = max(inside, key=lambda f: len(f.parts)) if inside else project_root(None, path.parent)
    if not path.is_relative_to(root) or path == root:
        return None
    return root, path.relative_to(root).as_posix()


def _publish(server: OrchestrateServer, doc: TextDocument, result: BufferCheck) -> None:
    """Diagnostics of one finished check, and a message when a check of it failed."""
    state = server.buffers.setdefault(doc.uri, _Buffer())
    if result.report is None:
        diagnostics = [fault_diagnostic(result.fault)]
        message = f"orchestrate: the check of {state.rel} failed: {result.fault}"
        kind = types.MessageType.Error
    else:
        diagnostics = buffer_diagnostics(result.report, state.rel, doc)
        failed = failed_of(result.report, state.rel)
        message = "; ".join(
            printable(f"{s.checker} {s.status} on {s.path}: {s.reason or 'no reason given'}")
            for s in failed
        )
        if message:
            message = f"orchestrate: {message} (the other results are shown)"
        kind = types.MessageType.Warning
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(uri=doc.uri, version=doc.version, diagnostics=diagnostics)
    )
    if message and message != state.shown:
        server.window_show_message(types.ShowMessageParams(type=kind, message=message))
    state.shown = message


def _log_engine(server: OrchestrateServer, root: Path, result: BufferCheck) -> None:
    """Log which way buffers of `root` are checked when it changed (not per keystroke)."""
    where = printable(str(root))
    if result.warm:
        note = f"orchestrate: buffers of {where} are checked by its warm engine"
    else:
        note = f"orchestrate: {result.cold_reason}; checking buffers of {where} in-process"
    if server.engine_notes.get(root) == note:
        return
    server.engine_notes[root] = note
    server.window_log_message(types.LogMessageParams(type=types.MessageType.Log, message=note))


async def check(server: OrchestrateServer, uri: str, delay: float = 0.0) -> None:
    """Check buffer `uri` (after `delay` seconds) and publish, unless a newer check of
    the same buffer started meanwhile."""
    state = server.buffers.setdefault(uri, _Buffer())
    state.generation += 1
    mine = state.generation
    if delay:
        await asyncio.sleep(delay)
    where = await asyncio.to_thread(locate, server, uri)  # may ask git for the top level
    if where is None:
        return
    state.root, state.rel = where
    doc = server.workspace.get_text_document(uri)
    text = doc.source
    result = await asyncio.to_thread(check_buffer, state.root, state.rel, text)
    if result.warm or result.cold_reason:
        _log_engine(server, state.root, result)
    if mine != state.generation:
        return
    state.report = result.report
    if doc.source != text:
        return  # the buffer moved on: its own pending check publishes
    _publish(server, doc, result)


def _schedule(server: OrchestrateServer, uri: str, delay: float) -> None:
    """Start a check of `uri`, cancelling one still waiting out its pause."""
    state = server.buffers.setdefault(uri, _Buffer())
    if state.pending is not None and not state.pending.done():
        state.pending.cancel()
    state.pending = asyncio.ensure_future(check(server, uri, delay))


def build_server() -> OrchestrateServer:
    """A server with the features `orchestrate lsp` offers registered."""
    server = OrchestrateServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: OrchestrateServer, params: types.DidOpenTextDocumentParams) -> None:
        _schedule(ls, params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: OrchestrateServer, params: types.DidChangeTextDocumentParams) -> None:
        _schedule(ls, params.text_document.uri, DEBOUNCE_S)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: OrchestrateServer, params: types.DidSaveTextDocumentParams) -> None:
        _schedule(ls, params.text_document.uri, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: OrchestrateServer, params: types.DidCloseTextDocumentParams) -> None:
        state = ls.buffers.pop(params.text_document.uri, None)
        if state is not None and state.pending is not None:
            state.pending.cancel()
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(
        ls: OrchestrateServer, params: types.CodeActionParams
    ) -> list[types.CodeAction]:
        state = ls.buffers.get(params.text_document.uri)
        if state is None or state.report is None or state.root is None:
            return []
        doc = ls.workspace.get_text_document(params.text_document.uri)
        return code_actions(state.report, state.rel, state.root, doc, params.range)

    return server


def serve() -> int:
    """Run the server over stdin/stdout until the client asks it to exit."""
    build_server().start_io()
    return 0
