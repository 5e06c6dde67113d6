"""The apply engine shared by `orchestrate clean` (hygiene) and `orchestrate fix` (lint).

Per op, at apply time: the path is safe, it has not changed since the report's
generated_at (mtime guard) and its anchored content still matches; lifecycle auto
verdicts are re-derived with live git state; other auto ops need a tracked, clean
path; confirm ops need approval; generative ops need a generator. Every applied op
is journaled first and every write is atomic.
"""

from __future__ import annotations

import difflib
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from orchestrator.core.walk import walk
from orchestrator.hygiene import content, dedupe, gitstate, journal, paths, summary
from orchestrator.hygiene.finalize import entry_tier
from orchestrator.hygiene.hygiene_report import Entry, Evidence
from orchestrator.hygiene.placement import Placement
from orchestrator.model.edits import LIFECYCLE_KINDS, Anchor, SafetyTier
from orchestrator.workspace import atomic_write

#: Test-only fault injection: exit the process right after this many applied ops.
CRASH_ENV = "ORCHESTRATE_TEST_CRASH_AFTER_OPS"

Status = Literal["applied", "would_apply", "pending", "skipped", "not_applied"]
Change = tuple[str, bytes | None]  # (relative path, new bytes or None for "remove")
CHANGED = "changed since check"
OVERLAPS = "overlaps an edit applied in this run; run check again"
#: Bytes of the root .gitattributes read (a regular file only: a FIFO would block).
MAX_ATTRS = 1024 * 1024


@dataclass(frozen=True)
class Result:
    """What happened to one op; `reason` is our own text, never file content."""

    id: str
    path: str
    kind: str
    tier: SafetyTier
    status: Status
    reason: str = ""
    diff: str = ""


@dataclass
class Options:
    approve: frozenset[str] = frozenset()
    approve_all_confirm: bool = False
    dry_run: bool = False
    prompt: Callable[[Entry, str], bool] | None = None  # interactive approval
    require_clean_git: bool = True  # non-lifecycle auto ops need a tracked, clean path
    #: Re-derive every auto span edit under the live hygiene scope rule (a hygiene
    #: report: no unasked edit of a published page or generated file), not only dedupes.
    scope_rule: bool = False
    #: Told what the run is about to change (summary rows) before any op is planned.
    announce: Callable[[list[Any]], None] | None = None
    #: Content guard of `lint --fix`: path -> sha256 of the bytes the checker judged; an
    #: op on a path whose bytes differ now (before this run touches it) is skipped.
    file_digests: Mapping[str, str] | None = None
    #: Journal to append to (several fix rounds share one run id, so one undo restores all).
    journal_run: journal.Journal | None = None


@dataclass
class Outcome:
    results: list[Result] = field(default_factory=list)
    run_id: str | None = None
    #: A dry run's planned end state: path -> new bytes (None: removed).
    planned: dict[str, bytes | None] = field(default_factory=dict)
    #: What the run was about to change, per tier and rule (summary.Row), counted with
    #: the tiers the run itself uses, before any op.
    summary: list[Any] = field(default_factory=list)


class _Skip(Exception):
    def __init__(self, status: Status, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def resolve(root: Path, rel: str) -> Path:
    """The absolute path of an editable relative path (paths.resolve); else _Skip."""
    try:
        return paths.resolve(root, rel)
    except paths.UnsafePath as exc:
        raise _Skip("skipped", f"unsafe path ({exc})") from None


def _refuse_special(path: Path) -> None:
    # A FIFO, socket or device is never read (a FIFO blocks) nor deleted: undo could
    # not bring it back.
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
        raise _Skip("skipped", "not a regular file or folder (FIFO, socket or device)")


class _View:
    """The tree as this run sees it: the disk plus, in a dry run, the changes planned so far.

    Every decision of a run reads through this view, so a dry run predicts the real run
    exactly: the real run writes each op's changes to disk, the dry run records them here.
    """

    def __init__(self, root: Path, simulate: bool) -> None:
        self.root = root
        self.simulate = simulate
        self.planned: dict[str, bytes | None] = {}

    def _planned(self, rel: str) -> tuple[bool, bytes | None]:
        if rel in self.planned:
            return True, self.planned[rel]
        parts = rel.split("/")
        for i in range(1, len(parts)):
            if self.planned.get("/".join(parts[:i]), b"") is None:
                return True, None  # inside a folder this run removes
        return False, None

    def is_planned(self, rel: str) -> bool:
        """Whether an earlier op of this dry run decided what is at `rel`."""
        return self._planned(rel)[0]

    def exists(self, rel: str) -> bool:
        """Whether anything is at `rel` (a dangling symlink counts)."""
        hit, data = self._planned(rel)
        return data is not None if hit else os.path.lexists(self.root / rel)

    def is_file(self, rel: str) -> bool:
        """Whether `rel` is a regular file."""
        hit, data = self._planned(rel)
        return data is not None if hit else (self.root / rel).is_file()

    def is_dir(self, rel: str) -> bool:
        """Whether `rel` is a real folder (not a symlink to one)."""
        hit, _data = self._planned(rel)
        path = self.root / rel
        return not hit and path.is_dir() and not path.is_symlink()

    def read(self, rel: str) -> bytes:
        """The bytes of file `rel` as this run sees them (size-bounded)."""
        hit, data = self._planned(rel)
        if not hit:
            return _read(self.root / rel)
        if data is None:
            raise _Skip("skipped", CHANGED + " (path is gone)")
        return data

    def digest(self, rel: str, anchor: Anchor) -> str | None:
        """content.path_digest of `rel` as this run sees it."""
        hit, data = self._planned(rel)
        if not hit:
            return content.path_digest(self.root / rel, anchor)
        got = None if data is None else content.span(data, anchor)
        return None if got is None else content.sha256(got)

    def record(self, changes: list[Change]) -> None:
        """Note the changes an op makes (a dry run only: a real run has written them)."""
        if self.simulate:
            self.planned.update(changes)


def _read(path: Path) -> bytes:
    if path.stat().st_size > content.MAX_EDIT_BYTES:
        raise _Skip("skipped", "file too large to edit")
    return path.read_bytes()


def _cut(data: bytes, start: int, end: int) -> bytes:
    lines = content.lines_of(data)
    return b"".join(lines[: start - 1] + lines[end:])


def _with_newline(data: bytes) -> bytes:
    return data if not data or data.endswith(b"\n") else data + b"\n"


def _frontmatter(data: bytes, key: str, value: str) -> bytes:
    if "\n" in value or "\r" in value or "\n" in key or ":" in key:
        raise _Skip("skipped", "frontmatter key/value must be one line")
    line = f"{key}: {value}\n".encode()
    if data.startswith(b"---\n"):
        end = data.find(b"\n---", 3)
        if end >= 0:
            head = content.lines_of(data[4 : end + 1])
            prefix = f"{key}:".encode()
            if any(h.strip() == line.strip() for h in head):
                raise _Skip("skipped", "frontmatter already present")
            if any(h.startswith(prefix) for h in head):
                raise _Skip("skipped", f"frontmatter already sets {key}")
            return data[: end + 1] + line + data[end + 1 :]
    return b"---\n" + line + b"---\n" + data


def _replace(data: bytes, edit: Any) -> bytes:
    lines = content.lines_of(data)
    first_no, last_no = edit.anchor.start_line, edit.anchor.end_line
    if last_no > len(lines) or first_no > len(lines):
        raise _Skip("skipped", CHANGED + " (anchor out of range)")
    if edit.start_column is not None:
        # A precise fix: `match` must sit exactly at (start_line, start_column); its own
        # length says where it ends (tools differ on how they report the end).
        text = data.decode("utf-8", "surrogateescape")
        offset = sum(len(ln.decode("utf-8", "surrogateescape")) for ln in lines[: first_no - 1])
        a = offset + edit.start_column - 1
        if len(lines[first_no - 1].decode("utf-8", "surrogateescape")) < edit.start_column - 1:
            raise _Skip("skipped", CHANGED + " (text at the anchor differs)")
        if text[a : a + len(edit.match)] != edit.match:
            raise _Skip("skipped", CHANGED + " (text at the anchor differs)")
        new_text = text[:a] + edit.replacement + text[a + len(edit.match) :]
        return new_text.encode("utf-8", "surrogateescape")
    seg = b"".join(lines[first_no - 1 : last_no]).decode("utf-8", "surrogateescape")
    count = seg.count(edit.match)
    if count != 1 or not edit.match:
        raise _Skip("skipped", CHANGED + " (match not found exactly once)")
    new = seg.replace(edit.match, edit.replacement, 1)
    head = b"".join(lines[: first_no - 1])
    tail = b"".join(lines[last_no:])
    return head + new.encode("utf-8", "surrogateescape") + tail


def edited(data: bytes, edit: Any) -> bytes | None:
    """What `data` becomes under a text edit of one file (replace-text, delete-range,
    insert-frontmatter), computed by the code a run applies; None when the edit no
    longer fits `data` (its anchor or text differs) or is not a text edit of one file."""
    try:
        if edit.kind == "replace-text":
            return _replace(data, edit)
        if edit.kind == "insert-frontmatter":
            return _frontmatter(data, edit.key, edit.value)
        if edit.kind == "delete-range" and content.span(data, edit.anchor) is not None:
            return _cut(data, edit.anchor.start_line, edit.anchor.end_line)
    except _Skip:
        return None
    return None


def plan_changes(view: _View, entry: Entry, extractor: Callable[[Entry], bool]) -> list[Change]:
    """The writes an op makes, in order (durable copies first, removals last)."""
    edit = entry.exact_edit
    assert edit is not None
    root = view.root
    resolve(root, entry.path)
    kind = edit.kind
    if kind in ("delete", "extract-then-delete"):
        changes: list[Change] = []
        if kind == "extract-then-delete":
            if not view.is_file(entry.path):
                raise _Skip("skipped", "extract-then-delete needs a file")
            if edit.extraction_target == "repo-durable":
                target = edit.target_document
                resolve(root, target)
                old = view.read(target) if view.is_file(target) else b""
                note = f"\n<!-- extracted from {entry.path} by orchestrate clean -->\n".encode()
                changes.append(
                    (target, _with_newline(old) + note + _with_newline(view.read(entry.path)))
                )
            elif not extractor(entry):
                raise _Skip(
                    "not_applied",
                    "not applied: no cross-repo extractor configured; nothing deleted",
                )
        return [*changes, (entry.path, None)]
    data = view.read(entry.path)
    if kind == "insert-frontmatter":
        return [(entry.path, _frontmatter(data, edit.key, edit.value))]
    if kind == "replace-text":
        return [(entry.path, _replace(data, edit))]
    got = content.span(data, edit.anchor)
    if got is None:
        raise _Skip("skipped", CHANGED + " (anchor out of range)")
    rest = _cut(data, edit.anchor.start_line, edit.anchor.end_line)
    if kind == "delete-range":
        return [(entry.path, rest)]
    if kind == "move-to-archive":
        resolve(root, edit.dest_path)
        old = view.read(edit.dest_path) if view.is_file(edit.dest_path) else b""
        return [(edit.dest_path, _with_newline(old) + got), (entry.path, rest)]
    if kind == "dedupe":
        ref = dedupe.parse_ref(edit.canonical_ref)
        if ref is not None:
            resolve(root, ref[0])
        if dedupe.self_overlap(entry.path, edit):
            raise _Skip("skipped", "canonical_ref overlaps the span it removes")
        if (
            ref is None
            or not view.is_file(ref[0])
            or content.span(view.read(ref[0]), ref[1]) != got
        ):
            raise _Skip("skipped", "canonical_ref no longer holds the identical text")
        return [(entry.path, rest)]
    raise _Skip("skipped", f"unknown kind {kind}")


def file_diff(root: Path, rel: str, new: bytes | None) -> str:
    """The unified diff of `rel` from its bytes on disk to `new` (None: removed)."""
    return _diff(_View(root.resolve(), True), rel, new)


def _diff(view: _View, rel: str, new: bytes | None) -> str:
    root = view.root
    path = root / rel
    if view.is_dir(rel):
        files = sorted(
            Path(d, f).relative_to(root).as_posix()
            for d, _dirs, names in walk(path, max_depth=None)
            for f in names
            if Path(d, f).is_file()
        )
        return (
            "".join(f"--- a/{f}\n+++ /dev/null\n@@ deleted @@\n" for f in files)
            or f"deleted: {rel}/\n"
        )
    old = view.read(rel) if view.is_file(rel) else b""
    if b"\0" in old or (new is not None and b"\0" in new):
        return f"Binary file {rel} {'deleted' if new is None else 'changed'}\n"
    a = old.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    b = [] if new is None else new.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    lines = difflib.unified_diff(a, b, f"a/{rel}", "/dev/null" if new is None else f"b/{rel}")
    return "".join(
        ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines
    )


def _guard(view: _View, entry: Entry, gen_ts: float, pre_mtime: dict[str, float]) -> None:
    edit = entry.exact_edit
    path = resolve(view.root, entry.path)
    if not view.exists(entry.path):
        raise _Skip("skipped", CHANGED + " (path is gone)")
    _refuse_special(path)
    mtime = pre_mtime.get(entry.path)
    if mtime is None:
        mtime = content.newest_mtime(path)
    if mtime > gen_ts:
        raise _Skip("skipped", CHANGED + " (modified after the report's generated_at)")
    anchor = getattr(edit, "anchor", None)
    if anchor is None and entry.anchor_digest is not None:
        anchor = Anchor(start_line=1, end_line=1, whole=True)  # a file-level op: the whole file
    if entry.anchor_digest is not None and anchor is not None:
        if view.digest(entry.path, anchor) != entry.anchor_digest:
            raise _Skip("skipped", CHANGED + " (anchored content differs)")
    elif anchor is not None and edit is not None and edit.kind != "replace-text":
        raise _Skip("skipped", "no anchor digest: content cannot be verified")


def live_placement(root: Path, plugins: Any) -> Placement | None:
    """The scope rule as the project's rulebook says now (None: the rulebook is invalid,
    so no placement can be trusted and every span edit it governs waits for approval)."""
    from orchestrator.hygiene import rulebook

    try:
        extra = plugins.hygiene_rules() if plugins is not None else []
        return Placement(root, rulebook.load_config(root, extra))
    except (rulebook.RulebookError, ValueError, OSError):
        return None


def live_proof(root: Path, plugins: Any) -> dict[str, Any] | None:
    """Path -> owning rule for every path the live rulebook proves may go now
    (scan.proven_now); None when the rulebook is invalid (then nothing is proven)."""
    from orchestrator.hygiene import rulebook, scan

    try:
        extra = plugins.hygiene_rules() if plugins is not None else []
        return scan.proven_now(root, rulebook.load_config(root, extra))
    except (rulebook.RulebookError, ValueError, OSError):
        return None


def _auto_lifecycle(entry: Entry) -> bool:
    edit = entry.exact_edit
    return entry.safety_tier == "auto" and edit is not None and edit.kind in LIFECYCLE_KINDS


def _kept_copies(entry: Entry) -> list[str]:
    """The paths an op relies on to keep its text: a dedupe's kept copy, a move's
    archive, an extraction's target document."""
    edit = entry.exact_edit
    if edit is None:
        return []
    ref = dedupe.parse_ref(edit.canonical_ref) if edit.kind == "dedupe" else None
    out = [ref[0]] if ref is not None else []
    for name in ("dest_path", "target_document"):
        value = getattr(edit, name, None)
        if value:
            out.append(value)
    return out


def _removed_by_run(entries: Sequence[Entry]) -> frozenset[str]:
    """Every path an op of this run may remove (whatever its tier: a confirm op may be
    approved at the prompt after the op that relied on it ran)."""
    return frozenset(
        e.path for e in entries if e.exact_edit is not None and e.exact_edit.kind in LIFECYCLE_KINDS
    )


def _relies_on_removed(entry: Entry, removed: frozenset[str]) -> bool:
    parts = [p.split("/") for p in _kept_copies(entry)]
    return any("/".join(p[:i]) in removed for p in parts for i in range(1, len(p) + 1))


def _proven_by_rule(entry: Entry, proof: dict[str, Any] | None) -> bool:
    """Whether the live rulebook owns the op's path with the op's own lifecycle and
    action, and proves it served (a report can claim any path is a proven leftover)."""
    edit = entry.exact_edit
    rule = None if proof is None else proof.get(entry.path)
    if rule is None or edit is None or rule.lifecycle() != edit.lifecycle:
        return False
    if edit.kind == "extract-then-delete":
        return rule.action == edit.kind and (rule.extraction_target, rule.target_document) == (
            edit.extraction_target,
            edit.target_document,
        )
    return rule.action == edit.kind


def generated_file(root: Path, rel: str) -> bool:
    """Whether the file at `rel` says it is generated (model/generated.py decides; the
    root .gitattributes counts): such a file is never edited without asking."""
    from orchestrator.model import generated as gen

    attrs = gen.parse_gitattributes(content.read_head(root / gen.GITATTRIBUTES, MAX_ATTRS))
    head = content.read_head(root / rel, gen.HEAD)  # never blocks on a FIFO
    return gen.generated_reason(rel, head, attrs) is not None


def _placement_tier(entry: Entry, place: Placement | None) -> tuple[SafetyTier, str] | None:
    """An auto span edit's tier re-derived with the live scope rule: a report (untrusted)
    cannot make a published page, a generated file or a cross-document copy look safe
    (the edited file, a dedupe's kept copy, a move's archive)."""
    edit = entry.exact_edit
    if entry.safety_tier != "auto" or edit is None or edit.kind in LIFECYCLE_KINDS:
        return None
    ref = dedupe.parse_ref(edit.canonical_ref) if edit.kind == "dedupe" else None
    if place is None:
        return (
            entry_tier(entry, doubts=frozenset({"rulebook_invalid"})),
            "needs approval: the hygiene rulebook is invalid",
        )
    kept = ref[0] if ref is not None else entry.path
    touched = [entry.path, kept]
    if edit.kind == "move-to-archive":
        touched.append(edit.dest_path)  # the archive is edited too
    ev = (entry.evidence or Evidence()).model_copy(
        update={
            "kept_in": place.kept_in(entry.path, kept),
            "published": place.touches_published(*touched),
        }
    )
    tier = entry_tier(entry, ev)  # the live placement: a published page or a copy elsewhere
    if tier == "auto":
        return None
    if any(place.generated(rel) is not None for rel in touched):
        return tier, "downgraded to confirm: a generated file (edit its source)"
    if ev.published:
        return tier, "downgraded to confirm: a published page"
    return tier, "downgraded to confirm: the kept copy is in another document"


def _effective_tier(
    root: Path,
    entry: Entry,
    opts: Options,
    git_cache: dict[str, gitstate.GitState],
    place: Callable[[], Placement | None] = lambda: None,
    proof: Callable[[], dict[str, Any] | None] = lambda: None,
) -> tuple[SafetyTier, str]:
    # Git state is read once per path, before this run writes to it: our own earlier
    # edits in the same file must not make the next op look "dirty".
    def live_state() -> gitstate.GitState:
        if entry.path not in git_cache:
            git_cache[entry.path] = gitstate.path_state(root, entry.path)
        return git_cache[entry.path]

    edit = entry.exact_edit
    if edit is not None and edit.kind in LIFECYCLE_KINDS:
        live = live_state()
        ev = entry.evidence
        if ev is not None:
            ev = ev.model_copy(update={"tracked": live.tracked, "clean": live.clean})
        tier = entry_tier(entry, ev)
        if entry.safety_tier == "auto" and tier != "auto":
            return tier, "downgraded to confirm: path is not tracked and clean now"
        if tier == "auto" and not _proven_by_rule(entry, proof()):
            tier = entry_tier(entry, ev, doubts=frozenset({"rule_unproven"}))
            return tier, "downgraded to confirm: the live rulebook does not prove it may go"
        if tier == "confirm":
            return tier, "awaiting approval: " + _why_confirm(entry, live)
        return tier, ""
    if (
        (edit is not None and edit.kind == "dedupe")
        or (entry.evidence and entry.evidence.placement_rule)
        or (opts.scope_rule and edit is not None)
    ):
        downgraded = _placement_tier(entry, place())
        if downgraded is not None:
            return downgraded
    if entry.safety_tier == "auto" and generated_file(root, entry.path):
        tier = entry_tier(entry, doubts=frozenset({"generated"}))
        return tier, "needs approval: a generated file (edit its source)"
    if entry.safety_tier == "auto" and opts.require_clean_git:
        live = live_state()
        if not (live.tracked and live.clean):
            tier = entry_tier(entry, doubts=frozenset({"not_tracked_clean"}))
            return tier, "needs approval: path is not tracked and clean"
    return entry.safety_tier, ""


def _why_confirm(entry: Entry, live: gitstate.GitState) -> str:
    if entry.lifecycle is not None and entry.lifecycle.served_when is not None:
        return "served_when needs judgement"
    if not live.tracked:
        return "not tracked by git (no other copy)"
    if not live.clean:
        return "uncommitted changes"
    return "not proven by the scan"


def _approved(entry: Entry, why: str, opts: Options) -> bool:
    if entry.id in opts.approve or opts.approve_all_confirm:
        return True
    if opts.prompt is not None and not opts.dry_run:
        return opts.prompt(entry, why)
    return False


def _span(entry: Entry) -> tuple[int, int] | None:
    """The original lines an op touches; None for a whole-file or file-level op."""
    edit = entry.exact_edit
    anchor = getattr(edit, "anchor", None)
    if anchor is None or anchor.whole:
        return None
    end = anchor.end_line
    match = getattr(edit, "match", None)
    if match:
        end = max(end, anchor.start_line + match.rstrip("\n").count("\n"))
    return anchor.start_line, end


def _overlaps(entry: Entry, touched: dict[str, list[tuple[int, int] | None]]) -> bool:
    done = touched.get(entry.path)
    if not done:
        return False
    mine = _span(entry)
    for other in done:
        if mine is None or other is None or not (mine[1] < other[0] or other[1] < mine[0]):
            return True
    return False


def _order(entries: Sequence[Entry]) -> list[Entry]:
    # Bottom-up within a file so earlier edits never shift later anchors.
    def key(e: Entry) -> tuple[str, int]:
        anchor = getattr(e.exact_edit, "anchor", None)
        return (e.path, -(anchor.start_line if anchor is not None else 0))

    return sorted(entries, key=key)


@dataclass
class _Run:
    """The state of one run; a dry run and a real run go through the same steps."""

    root: Path
    opts: Options
    plugins: Any
    gen_ts: float
    report_generated_at: str
    view: _View
    out: Outcome = field(default_factory=Outcome)
    jr: journal.Journal | None = None
    pre_mtime: dict[str, float] = field(default_factory=dict)
    git_cache: dict[str, gitstate.GitState] = field(default_factory=dict)
    touched: dict[str, list[tuple[int, int] | None]] = field(default_factory=dict)
    applied: int = 0
    tier: SafetyTier = "confirm"  # the current op's effective tier, also when it is skipped
    _placement: list[Placement | None] = field(default_factory=list)
    _proof: list[dict[str, Any] | None] = field(default_factory=list)
    #: Paths an op of this run may remove: no other op keeps its text there.
    removed: frozenset[str] = frozenset()

    def placement(self) -> Placement | None:
        """The live scope rule, read once per run."""
        if not self._placement:
            self._placement.append(live_placement(self.root, self.plugins))
        return self._placement[0]

    def proof(self) -> dict[str, Any] | None:
        """What the live rulebook proves may go, read once per run (`apply` reads it
        before the first write)."""
        if not self._proof:
            self._proof.append(live_proof(self.root, self.plugins))
        return self._proof[0]

    @property
    def has_generator(self) -> bool:
        return self.plugins is not None and bool(
            self.plugins.pm.hook.orchestrate_generate.get_hookimpls()
        )

    def extractor(self, entry: Entry) -> bool:
        if not self.has_generator or self.opts.dry_run:
            return self.has_generator
        res = self.plugins.generate(
            {"action": "extract", **entry.model_dump(mode="json")}, str(self.root)
        )
        return isinstance(res, dict) and res.get("extracted") is True

    def content_guard(self, entry: Entry) -> None:
        """Skip an op on a file whose bytes are no longer the ones the checker judged."""
        want = (self.opts.file_digests or {}).get(entry.path)
        if want is None or entry.path in self.touched:
            return
        if content.sha256(self.view.read(entry.path)) != want:
            raise _Skip("skipped", "changed since it was read (content digest differs)")

    def preview_tier(self, entry: Entry) -> SafetyTier:
        """The tier the run will give `entry` (its recorded tier when it cannot tell,
        e.g. an unsafe path: such an op is skipped anyway). Reads, never writes."""
        if entry.op_type == "generative" or entry.exact_edit is None:
            return entry.safety_tier
        try:
            resolve(self.root, entry.path)
            return _effective_tier(
                self.root, entry, self.opts, self.git_cache, self.placement, self.proof
            )[0]
        except (_Skip, OSError):
            return entry.safety_tier

    def plan(self, entry: Entry) -> tuple[SafetyTier, list[Change]]:
        """The one planning step: decide an op and compute its changes, or raise _Skip."""
        if entry.op_type == "generative":
            if not self.has_generator:
                raise _Skip("not_applied", "not applied: no generator configured")
            _guard(self.view, entry, self.gen_ts, self.pre_mtime)
            if not _approved(entry, "generative op", self.opts):
                raise _Skip("pending", "awaiting approval (generative)")
            return entry.safety_tier, _generated(self.root, entry, self.plugins, self.opts)
        _guard(self.view, entry, self.gen_ts, self.pre_mtime)
        self.content_guard(entry)
        if _overlaps(entry, self.touched):
            raise _Skip("skipped", OVERLAPS)
        if _relies_on_removed(entry, self.removed):
            raise _Skip("skipped", "its kept copy is a path this run may remove; run check again")
        tier, why = _effective_tier(
            self.root, entry, self.opts, self.git_cache, self.placement, self.proof
        )
        self.tier = tier
        if tier == "confirm" and not _approved(entry, why or "confirm tier", self.opts):
            raise _Skip("pending", why or "awaiting approval")
        changes = plan_changes(self.view, entry, self.extractor)
        for rel, _new in changes:  # a destination too: the real run could not journal it
            if not self.view.is_planned(rel):
                _refuse_special(self.root / rel)
        return tier, changes

    def carry_out(self, entry: Entry, kind: str, changes: list[Change]) -> None:
        """Write the changes (real run) or record them in the view (dry run)."""
        root = self.root
        for rel, _new in changes:
            self.pre_mtime.setdefault(
                rel, content.newest_mtime(root / rel) if self.view.exists(rel) else 0.0
            )
            if rel not in self.git_cache and (self.opts.require_clean_git or rel == entry.path):
                self.git_cache[rel] = gitstate.path_state(root, rel)
        if self.opts.dry_run:
            self.view.record(changes)
        else:
            if self.jr is None:
                self.jr = journal.Journal.create(root, self.report_generated_at)
                self.out.run_id = self.jr.run_id
            _write(root, self.jr, entry.id, kind, changes)
        self.touched.setdefault(entry.path, []).append(_span(entry))
        for rel, _new in changes:
            if rel != entry.path:
                self.touched.setdefault(rel, []).append(None)


def apply(
    root: Path,
    entries: Sequence[Entry],
    generated_at_ts: float,
    opts: Options,
    plugins: Any = None,
    report_generated_at: str = "",
) -> Outcome:
    """Apply what may be applied; one Result per entry, in apply order. Never half-writes.

    With opts.dry_run the same planning runs against a view that records each op's
    changes instead of writing them, so the statuses are exactly the real run's
    (`would_apply` for `applied`).
    """
    root = root.resolve()
    run = _Run(root, opts, plugins, generated_at_ts, report_generated_at, _View(root, opts.dry_run))
    if opts.journal_run is not None and not opts.dry_run:
        run.jr = opts.journal_run
        run.out.run_id = opts.journal_run.run_id
    run.removed = _removed_by_run(entries)
    crash_after = int(os.environ.get(CRASH_ENV, "0") or 0)
    if any(_auto_lifecycle(e) for e in entries):
        run.proof()  # the tree as it is before this run writes anything
    run.out.summary = summary.plan_summary(
        [e.model_copy(update={"safety_tier": run.preview_tier(e)}) for e in entries]
    )
    if opts.announce is not None:
        opts.announce(run.out.summary)
    for entry in _order(entries):
        kind = entry.exact_edit.kind if entry.exact_edit is not None else "generative"
        run.tier = entry.safety_tier
        try:
            tier, changes = run.plan(entry)
            diff = "".join(_diff(run.view, rel, new) for rel, new in changes)
            run.carry_out(entry, kind, changes)
        except _Skip as skip:
            run.out.results.append(
                Result(entry.id, entry.path, kind, run.tier, skip.status, skip.reason)
            )
            continue
        except OSError as exc:
            reason = f"skipped: {exc.strerror or type(exc).__name__}"
            run.out.results.append(Result(entry.id, entry.path, kind, run.tier, "skipped", reason))
            continue
        status: Status = "would_apply" if opts.dry_run else "applied"
        run.out.results.append(Result(entry.id, entry.path, kind, tier, status, "", diff))
        run.applied += 1
        if crash_after and not opts.dry_run and run.applied >= crash_after:
            os._exit(70)
    run.out.planned = dict(run.view.planned)
    return run.out


def _generated(root: Path, entry: Entry, plugins: Any, opts: Options) -> list[Change]:
    path = resolve(root, entry.path)
    if not path.is_file():
        raise _Skip("skipped", CHANGED + " (path is gone)")
    if opts.dry_run:
        raise _Skip("pending", "generative op: the generator runs only on a real clean")
    res = plugins.generate(entry.model_dump(mode="json"), str(root))
    if (
        not isinstance(res, dict)
        or res.get("path") != entry.path
        or not isinstance(res.get("content"), str)
    ):
        raise _Skip("not_applied", "not applied: the generator returned no usable result")
    return [(entry.path, res["content"].encode("utf-8", "surrogateescape"))]


def _write(root: Path, jr: journal.Journal, op_id: str, kind: str, changes: list[Change]) -> None:
    images = []
    for rel, new in changes:
        before = journal.snapshot_path(root / rel, jr.blobs)
        after = "absent" if new is None else "file:" + content.sha256(new)
        images.append((rel, after, before))
    index = jr.record(op_id, kind, images)
    for rel, new in changes:
        if new is None:
            journal.remove_path(root / rel, jr.dir / "trash")
        else:
            atomic_write(root / rel, new)
    jr.done(index)
