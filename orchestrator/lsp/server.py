"""The language server: buffer events -> checks -> diagnostics, code actions on request.

No fixed wait after typing: an open, a change or a save checks the buffer at once when
no check of it is in flight; while one is, only the newest text counts, and it is
checked as soon as the running check ends (changes coalesce, none waits out a pause).
A check whose buffer moved on meanwhile publishes nothing, and no publish ever carries
an older version than one already published. Each check runs in a worker thread so
the server keeps answering. A check that fails (a crashing tool, an internal fault) is
reported, never fatal. A check goes to the project's warm engine when one runs
(lsp/check.py); which way checks go, and why not warm, is one `window/logMessage` each
time it changes. The server is resident while it runs: a JavaScript or TypeScript
check goes through the persistent ESLint worker (plugins/eslint_warm.py), not a new
ESLint process per change.

A buffer with no file yet is checked from its text: an `untitled:` buffer under the
first workspace folder, named `<its name><extension of its languageId>` (untitled_rel),
and a `file:` buffer whose file does not exist yet under its own name.
"""

from __future__ import annotations

import asyncio
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from orchestrator import __version__
from orchestrator.lsp.actions import code_actions
from orchestrator.lsp.check import check_buffer
from orchestrator.lsp.diagnostics import buffer_diagnostics, failed_of, fault_diagnostic
from orchestrator.model.languages import extension_of
from orchestrator.model.report import Report
from orchestrator.resident import residency
from orchestrator.safetext import printable
from orchestrator.usecases.editor import BufferCheck, preload
from orchestrator.usecases.requests import project_root

#: LSP language identifiers that name a language differently from the manifest.
LANGUAGE_IDS = {"javascriptreact": "jsx", "typescriptreact": "tsx", "shellscript": "bash"}
#: The characters an untitled buffer's name keeps in the name it is judged under.
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")
#: The most characters of that name.
MAX_NAME = 64


@dataclass
class _Buffer:
    """What the server knows of one open buffer: its newest check and its result.

    `dirty` says its text changed since the running check took its copy; `runner` is
    the task checking it until it is clean; `published` the newest version shown."""

    generation: int = 0
    runner: asyncio.Task[None] | None = None
    dirty: bool = False
    published: int | None = None
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


def untitled_rel(uri: str, language_id: str | None) -> str:
    """The project path an `untitled:` buffer is judged under: its name (letters,
    digits, `_.-`; at most MAX_NAME characters) plus the first extension of the language
    its `languageId` names, so each tool judges it as that language."""
    name = _NAME_CHARS.sub("-", uri.split(":", 1)[-1].rsplit("/", 1)[-1]).strip("-.")
    name = name[:MAX_NAME] or "untitled"
    language = LANGUAGE_IDS.get(language_id or "", language_id or "")
    ext = extension_of(language) if language else None
    return name + ext if ext and not name.endswith(ext) else name


def _folders(server: LanguageServer) -> list[Path]:
    return [
        Path(p).resolve()
        for p in (to_fs_path(f.uri) for f in server.workspace.folders.values())
        if p
    ]


def _existing(path: Path) -> Path:
    """`path`, or its nearest folder that exists (a buffer's file may not exist yet)."""
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def locate(
    server: LanguageServer, uri: str, language_id: str | None = None
) -> tuple[Path, str] | None:
    """(project root, project-relative path) of a buffer: a file buffer under the
    deepest workspace folder holding it, else its git top level; an untitled buffer
    under the first workspace folder (untitled_rel); None for any other buffer, a file
    outside every root, or an untitled buffer with no workspace folder."""
    folders = _folders(server)
    if uri.startswith("untitled:"):
        return (folders[0], untitled_rel(uri, language_id)) if folders else None
    raw = to_fs_path(uri) if uri.startswith("file:") else None
    if not raw:
        return None
    path = Path(raw).resolve()
    inside = [f for f in folders if path.is_relative_to(f)]
    if inside:
        root = max(inside, key=lambda f: len(f.parts))
    else:
        root = project_root(None, _existing(path.parent))
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


async def check(server: OrchestrateServer, uri: str) -> None:
    """Check buffer `uri` as it is now and publish, unless a newer check of it started
    meanwhile or its text moved on (the check of the newer text publishes), and never
    an older version than one already published."""
    state = server.buffers.setdefault(uri, _Buffer())
    state.generation += 1
    mine = state.generation
    doc = server.workspace.get_text_document(uri)
    text, version = doc.source, doc.version
    where = await asyncio.to_thread(locate, server, uri, doc.language_id)
    if where is None:
        return
    state.root, state.rel = where
    result = await asyncio.to_thread(check_buffer, state.root, state.rel, text)
    if result.warm or result.cold_reason:
        _log_engine(server, state.root, result)
    if mine != state.generation or server.buffers.get(uri) is not state:
        return
    if doc.source != text or doc.version != version:
        return  # the buffer moved on: the check of its newest text publishes
    if version is not None and state.published is not None and version < state.published:
        return
    state.report = result.report
    state.published = version
    _publish(server, doc, result)


async def _drain(server: OrchestrateServer, uri: str, state: _Buffer) -> None:
    """Check `uri` until a check ran on its newest text (the buffer is not dirty)."""
    while state.dirty and server.buffers.get(uri) is state:
        state.dirty = False
        await check(server, uri)


def _schedule(server: OrchestrateServer, uri: str) -> None:
    """Check `uri` at once when no check of it runs; else mark it to be checked again
    with its newest text as soon as the running one ends (changes coalesce)."""
    state = server.buffers.setdefault(uri, _Buffer())
    state.dirty = True
    if state.runner is None or state.runner.done():
        state.runner = asyncio.ensure_future(_drain(server, uri, state))


def build_server() -> OrchestrateServer:
    """A server with the features `orchestrate lsp` offers registered."""
    server = OrchestrateServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: OrchestrateServer, params: types.DidOpenTextDocumentParams) -> None:
        _schedule(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: OrchestrateServer, params: types.DidChangeTextDocumentParams) -> None:
        _schedule(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: OrchestrateServer, params: types.DidSaveTextDocumentParams) -> None:
        _schedule(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: OrchestrateServer, params: types.DidCloseTextDocumentParams) -> None:
        state = ls.buffers.pop(params.text_document.uri, None)
        if state is not None and state.runner is not None:
            state.runner.cancel()
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


def serve(stdin: IO[bytes] | None = None, stdout: Any = None) -> int:
    """Run the server over `stdin`/`stdout` (the process's own by default) until the
    client asks it to exit; what the first check needs is imported in the background
    meanwhile (usecases/editor.preload). The server is a long-lived process (resident.residency):
    a checker may keep a helper warm between checks (the ESLint worker,
    plugins/eslint_warm.py), ended when the server ends."""
    with residency():
        server = build_server()
        threading.Thread(target=preload, name="orchestrate-preload", daemon=True).start()
        server.start_io(stdin, stdout)
    return 0
