"""Walks a Bash syntax tree the way Bash would run it, for the shell analyser.

Pure: the command is parsed with the bundled tree-sitter Bash grammar, never run. The
walk keeps an abstract state (the shell's directory and GIT_* variables, what the
command has staged, whether files may have changed) and joins it where control flow
branches, so that a value that differs between paths becomes unknown instead of
being guessed. Git's own argument rules live in `git_rules`.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from orchestrator.shell.records import (
    DYN,
    MAX_NODE_DEPTH,
    MAX_SHELL_DEPTH,
    MAX_STEPS,
    Ctx,
    GitOp,
    Node,
    Reason,
    State,
    Stop,
    Word,
    join,
)

Pair = tuple[State, State]  # (state if it succeeded, state whatever happened)

_STATEMENTS = frozenset(
    {
        "command",
        "redirected_statement",
        "list",
        "pipeline",
        "subshell",
        "compound_statement",
        "negated_command",
        "if_statement",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "select_statement",
        "case_statement",
        "function_definition",
        "variable_assignment",
        "variable_assignments",
        "declaration_command",
        "unset_command",
        "test_command",
        "comment",
    }
)
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_WRITE_REDIRECTS = frozenset({">", ">>", "&>", "&>>", ">|", "<>", ">&", "&>|"})
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-"})
_OUTSIDE_PREFIXES = ("/tmp/", "/dev/", "/proc/", "/var/tmp/")
#: Scratch folders no `PATH` holds unless the command says so (`_found_elsewhere`):
#: files of unknown names landing there are no program a later command finds.
_SCRATCH_PREFIXES = ("/tmp/", "/var/tmp/")
# GIT_* select the repository; CDPATH steers `cd`; PATH, HOME and XDG_CONFIG_HOME
# decide which git runs and which global config (and so which hooks) it reads; the
# pager, editor and browser variables name programs git runs; BASH_ENV, ENV, PS4,
# SHELLOPTS, BASHOPTS and PROMPT_COMMAND are code a shell runs by itself.
_TRACKED_ENV = re.compile(
    r"^(GIT_[A-Za-z0-9_]*|CDPATH|PATH|HOME|XDG_CONFIG_HOME|PAGER|EDITOR|VISUAL|SSH_ASKPASS"
    r"|LESSOPEN|LESSCLOSE|BROWSER|BASH_ENV|ENV|PS4|SHELLOPTS|BASHOPTS|PROMPT_COMMAND)$"
)
_ANSI_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
# The bundled Bash grammar's scanner can crash the process on code points far above
# the Basic Multilingual Plane (seen with `{` followed by U+E0000..U+10FFFF). They are
# never shell syntax, so each is parsed as U+FFFD and a word holding one is unknown.
_UNSAFE_FOR_PARSER = re.compile("[\U00010000-\U0010ffff\ud800-\udfff]")
_PLACEHOLDER = "\ufffd"
_ANSI = re.compile(r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.?|.)")


@lru_cache(maxsize=1)
def _parser() -> Any:
    from tree_sitter_language_pack import get_parser

    return get_parser("bash")


def _text(node: Node, ctx: Ctx) -> str:
    return ctx.src[node.start_byte : node.end_byte].decode("utf-8", "replace")


def normpath(base: str | None, path: str) -> str | None:
    """`path` as seen from the start directory (logically, as `cd` does), or None."""
    if path.startswith("/"):
        return posixpath.normpath(path)
    if base is None:
        return None
    return posixpath.normpath(posixpath.join(base, path))


def _outside_start_tree(folder: str, cwd: str | None) -> bool:
    """Whether a folder, as the command spells it from `cwd`, may lie outside the
    start folder's tree (absolute, above it, or not known before the command runs)."""
    if DYN in folder:
        return True
    where = normpath(cwd, folder)
    return where is None or where.startswith("/") or where == ".." or where.startswith("../")


# ---------------------------------------------------------------- words


def _unquoted(raw: str) -> tuple[str, bool]:
    """Quote removal for unquoted text: backslash escapes and line continuations."""
    out: list[str] = []
    glob = False
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            if raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
            continue
        glob = glob or c in "*?["
        out.append(c)
        i += 1
    return "".join(out), glob


def _dq(raw: str) -> str:
    """Backslash rules inside double quotes."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        if raw[i] == "\\" and i + 1 < len(raw) and raw[i + 1] in '$`"\\\n':
            if raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
            continue
        out.append(raw[i])
        i += 1
    return "".join(out)


def _ansi_c(raw: str) -> str:
    def one(m: re.Match[str]) -> str:
        esc = m.group(1)
        if esc in _ANSI_ESCAPES:
            return _ANSI_ESCAPES[esc]
        try:
            if esc[0] in "xuU":
                return chr(int(esc[1:], 16))
            if esc[0] in "01234567":
                return chr(int(esc, 8) & 0xFF)
        except (ValueError, OverflowError):
            return DYN
        return DYN  # \cX and unknown escapes: not worth guessing

    return _ANSI.sub(one, raw)


def _string(node: Node, ctx: Ctx) -> str:
    parts: list[str] = []
    pos = node.start_byte + 1
    end = node.end_byte - 1
    for child in node.named_children:
        parts.append(_dq(ctx.src[pos : child.start_byte].decode("utf-8", "replace")))
        parts.append(_dq(_text(child, ctx)) if child.type == "string_content" else DYN)
        pos = child.end_byte
    if pos < end:
        parts.append(_dq(ctx.src[pos:end].decode("utf-8", "replace")))
    return "".join(parts)


def _piece(node: Node, ctx: Ctx, unquoted: list[str]) -> tuple[str, bool]:
    t = node.type
    if t in ("word", "number"):
        raw = _text(node, ctx)
        unquoted.append(raw)
        return _unquoted(raw)
    if t == "raw_string":
        return _text(node, ctx)[1:-1], False
    if t in ("string", "translated_string"):
        return _string(node, ctx), False
    if t == "ansi_c_string":
        return _ansi_c(_text(node, ctx)[2:-1]), False
    if t == "concatenation":
        texts: list[str] = []
        glob = False
        for child in node.named_children:
            s, g = _piece(child, ctx, unquoted)
            texts.append(s)
            glob = glob or g
        return "".join(texts), glob
    return DYN, False


def word(node: Node, ctx: Ctx) -> Word:
    """The word a syntax node stands for; expansions become DYN."""
    unquoted: list[str] = []
    text, glob = _piece(node, ctx, unquoted)
    bare = "".join(unquoted)
    if "{" in bare and "}" in bare:
        text = DYN + text  # brace expansion may turn one word into several
    if unquoted and _text(node, ctx).startswith("~"):
        text = DYN + text  # tilde expansion
    return Word(text.replace(_PLACEHOLDER, DYN), glob)


# ---------------------------------------------------------------- walker


@dataclass(frozen=True)
class CommandRules:
    """What the walker asks about simple commands, supplied by the caller (the command
    rules sit above the walker and recurse into it through this record, never through
    an import back up).

    run_words: run one simple command's words (builtins, wrappers, git) and return the
    state after it; protected_write: the forbidden reason for writing a path from the
    shell's directory, or None; fed_text_safe: programs a here-doc may be handed to
    without being read as a script; looks_like_delivery: whether text handed to a
    program may commit or push."""

    run_words: Callable[[Walker, list[Word], State, Ctx, int], State]
    protected_write: Callable[[str, str | None], Reason | None]
    fed_text_safe: frozenset[str]
    looks_like_delivery: Callable[[str], bool]


class Walker:
    """Collects git operations, forbidden bypasses and doubts over one command, judging
    each simple command with `rules`."""

    def __init__(self, aliases: dict[str, str], rules: CommandRules) -> None:
        self.aliases = aliases
        self.rules = rules
        self.ops: list[GitOp] = []
        self.forbidden: list[Reason] = []
        self.reasons: list[Reason] = []
        self.background = False
        self.steps = 0
        # Files the command writes content to (from the start folder), in walk order;
        # `written_unknown`: one it writes cannot be named.
        self.written: set[str] = set()
        self.written_unknown = False
        # Files a program this module does not read may have written: the paths its
        # arguments name (`curl -o x`, `gen out.sh`); `maybe_unnamed`: it may have
        # written one no argument names (a variable, or a downloader or unpacker that
        # picks the names: `curl -O URL`, `wget URL`, `tar -x`). `fetched`: that came
        # from a downloader or unpacker (its files count as build files too).
        self.maybe_written: set[str] = set()
        # Folders a copier may have filled (`cp -r d e`, `mv d e`, `rsync d/ e/`): a
        # file run under one of them may be a copy of what this command wrote.
        self.written_trees: set[str] = set()
        self.maybe_unnamed = False
        self.fetched = False
        # Programs a later command may find on `PATH` (`cp x ~/.local/bin/git && git
        # status`): the names of files written into a folder other than the start
        # folder, and `path_unknown`, a file of a name the text does not hold written
        # into a folder outside the start tree or not known (`tar -C ~/bin`, `cp -r d
        # ~/bin`, `> "$F"`). See `lands_on_path`.
        self.path_names: set[str] = set()
        self.path_unknown = False
        #: Every file a command names as one it writes, by content or not (targets
        #: known from the text, a glob as spelled, seen from the start directory):
        #: `Analysis.writes`.
        self.write_targets: set[str] = set()
        # Redirections the grammar hangs on a whole list or pipeline belong to its
        # last command (`a && b > f`), keyed by that command's byte span.
        self.attached: dict[tuple[int, int], list[Node]] = {}

    # -- bookkeeping

    def doubt(self, reason: Reason) -> None:
        """Note that the command is undeterminable for `reason`."""
        if reason not in self.reasons:
            self.reasons.append(reason)

    def forbid(self, reason: Reason) -> None:
        """Note a bypass the gate must refuse."""
        if reason not in self.forbidden:
            self.forbidden.append(reason)

    def record(self, op: GitOp) -> None:
        """Keep one git operation."""
        self.ops.append(op)

    def step(self) -> None:
        """Count work; a command that needs too much is undeterminable."""
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Stop(Reason.TOO_COMPLEX)

    # -- entry points

    def run_script(self, text: str, state: State | None = None, depth: int = 0) -> State:
        """Walk a script in a new shell (its functions start empty); the effects on
        files are returned with the caller's shell state unchanged."""
        if depth > MAX_SHELL_DEPTH:
            raise Stop(Reason.NESTING_TOO_DEEP)
        st = state or State()
        src = _UNSAFE_FOR_PARSER.sub(_PLACEHOLDER, text).encode("utf-8")
        tree = _parser().parse(src)
        if tree.root_node.has_error:
            raise Stop(Reason.PARSE_ERROR)
        ctx = Ctx(src=src, depth=depth)
        _, after = self.block(tree.root_node.children, st, ctx, 0)
        return st.world(after)

    def run_argv(self, words: list[Word]) -> State:
        """Walk an argv list (a host that runs a program without a shell)."""
        return self.rules.run_words(self, words, State(), Ctx(), 0)

    # -- statements

    def block(self, children: list[Node], st: State, ctx: Ctx, nd: int) -> Pair:
        """A sequence of statements (`;`, newline, `&`)."""
        ok, cur = st, st
        for i, node in enumerate(children):
            if not node.is_named or node.type == "comment":
                continue
            nxt = children[i + 1] if i + 1 < len(children) else None
            if nxt is not None and nxt.type == "&":
                self.background = True
                _, after = self.stmt(node, cur, ctx, nd)
                cur = join(cur, cur.world(after))  # its effects land at any time
                ok = cur
                continue
            ok, cur = self.stmt(node, cur, ctx, nd)
        return ok, cur

    def stmt(self, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
        """One statement: dispatch on its syntax."""
        self.step()
        if nd > MAX_NODE_DEPTH:
            raise Stop(Reason.TOO_COMPLEX)
        extra = self.attached.pop((node.start_byte, node.end_byte), None)
        if extra:
            st = self.redirects(extra, st, ctx, nd)
        handler = _HANDLERS.get(node.type)
        if handler is None:
            self.doubt(Reason.UNKNOWN_CONSTRUCT)
            bad = st.tainted()
            return bad, bad
        return handler(self, node, st, ctx, nd + 1)

    def substitutions(self, node: Node, st: State, ctx: Ctx, nd: int) -> State:
        """Run the `$(...)`, backquote and `<(...)` commands inside `node` (they run
        before the command that holds them), without entering nested statements."""
        stack = list(reversed(node.children)) if node.type in _STATEMENTS else [node]
        while stack:
            n = stack.pop()
            self.step()
            if n.type in _SUBSTITUTIONS:
                _, after = self.block(n.children, st, ctx, nd + 1)
                st = st.world(after)
            elif n.type not in _STATEMENTS:
                stack.extend(reversed(n.children))
        return st

    def loop(self, parts: list[Node], st: State, ctx: Ctx, nd: int) -> Pair:
        """A loop body runs any number of times: walk it from a state that holds on
        every iteration (a first pass, discarded, finds what changes)."""
        outer = ctx.in_loop
        ctx.in_loop = True
        marks = (len(self.ops), len(self.reasons), len(self.forbidden))
        _, once = self.block(parts, st, ctx, nd)
        del self.ops[marks[0] :], self.reasons[marks[1] :], self.forbidden[marks[2] :]
        start = join(st, once)
        _, again = self.block(parts, start, ctx, nd)
        ctx.in_loop = outer
        end = join(start, again)
        return end, end

    def pipeline(self, elements: list[Node], st: State, ctx: Ctx, nd: int) -> Pair:
        """Elements run at the same time, each in a subshell: a delivery next to an
        element that changes files or the index cannot be judged."""
        cur = st
        effects: list[tuple[bool, bool]] = []
        for el in elements:
            before = len(self.ops)
            _, after = self.stmt(el, cur, ctx, nd)
            changed = (after.staged, after.worktree_changed) != (cur.staged, cur.worktree_changed)
            # A push sends commits that exist already: files changing beside it do
            # not change what it sends.
            delivered = any(op.delivers and op.kind != "push" for op in self.ops[before:])
            effects.append((changed, delivered))
            cur = st.world(after)
        for i, (_, delivered) in enumerate(effects):
            if delivered and any(c for j, (c, _) in enumerate(effects) if j != i):
                self.doubt(Reason.CONCURRENT_CHANGE)
        return cur, cur

    def redirects(self, nodes: list[Node], st: State, ctx: Ctx, nd: int) -> State:
        """Files a command's redirections write: `.git/**` is forbidden, the rest may
        change the work tree."""
        for r in nodes:
            st = self.substitutions(r, st, ctx, nd)
            if r.type == "heredoc_redirect":
                inner = [c for c in r.named_children if c.type == "file_redirect"]
                st = self.redirects(inner, st, ctx, nd)
                continue
            if r.type != "file_redirect":
                continue
            op = next((c.type for c in r.children if not c.is_named), "")
            dest = r.child_by_field_name("destination")
            if op not in _WRITE_REDIRECTS or dest is None:
                continue
            target = word(dest, ctx)
            if target.text in _HARMLESS_TARGETS or target.text.isdigit():
                continue
            st = self.write_target(target, st)
        return st

    def lands_on_path(self, path: str, st: State, named: bool = True) -> None:
        """A file written at `path` (from the shell's folder) may be a program a later
        command of the same line finds on `PATH`, which the analyser does not know:
        note its name (any folder but the start folder itself: one found there only
        on a `PATH` the command changed), or, when `named` is False (`path` is a folder
        receiving files whose names the text does not hold) or the name is not known
        (a variable, a pattern, a brace expansion), that some name may be, when the
        folder is outside the start tree or not known (`~`, `~user`, `$HOME`, a `cd`
        to one). Bash expands `~` and `$HOME`; the analyser does not, so they are
        folders not known. Names are kept case-folded (a file system may fold case).
        Unknown names landing in `/tmp` or `/var/tmp` are not counted."""
        folder, slash, name = path.rpartition("/")
        if not named:
            folder, name = path, ""
        elif not name:
            return  # `DIR/`: a folder, no file of its own (a copier's rule reads it)
        elif not slash:
            folder = "."
        if name and DYN not in name and not any(c in name for c in "*?[{"):
            where = normpath(st.cwd, path) if DYN not in folder else None
            if where is None or posixpath.dirname(where) not in ("", "."):
                self.path_names.add(name.casefold())
            return
        if DYN in name or _outside_start_tree(folder or "/", st.cwd):
            where = normpath(st.cwd, folder) if DYN not in path else None
            scratch = where is not None and (where + "/").startswith(_SCRATCH_PREFIXES)
            self.path_unknown = self.path_unknown or not scratch

    def write_target(self, target: Word, st: State, content: bool = True) -> State:
        """A file a command writes (`content`: its bytes, not only its mode or
        existence): refuse protected places, note the change."""
        reason = self.rules.protected_write(target.text, st.cwd)
        if reason is not None:
            self.forbid(reason)
        if DYN not in target.text and (seen := normpath(st.cwd, target.text)) is not None:
            self.write_targets.add(seen)
        if content:
            self.lands_on_path(target.text, st)
            path = normpath(st.cwd, target.text) if target.literal else None
            if path is None:
                self.written_unknown = True
            else:
                self.written.add(path)
        if target.literal and target.text.startswith(_OUTSIDE_PREFIXES):
            return st
        return replace(st, worktree_changed=True)


# ---------------------------------------------------------------- statement handlers


def _command(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    st = w.substitutions(node, st, ctx, nd)
    redirs = [c for c in node.named_children if c.type.endswith("_redirect")]
    st = w.redirects(redirs, st, ctx, nd)
    _fed_text(w, node, redirs, ctx)
    name = node.child_by_field_name("name")
    assigns = [c for c in node.named_children if c.type == "variable_assignment"]
    if name is None:
        _code_in_values(w, assigns, ctx)
        for a in assigns:
            st = _assign(a, st, ctx)
        return st, st
    inner = name.named_children[0] if name.named_children else name
    if inner.type == "arithmetic_expansion" and len(node.named_children) == 1:
        return st, st  # `(( ... ))`: its substitutions ran above
    words = [word(inner, ctx)]
    for c in node.named_children:
        if (
            c.start_byte > name.start_byte
            and c.type
            not in (
                "variable_assignment",
                "comment",
            )
            and not c.type.endswith("_redirect")
        ):
            words.append(word(c, ctx))
    _code_in_values(w, assigns, ctx)
    child = st
    for a in assigns:
        child = _assign(a, child, ctx)
    ok = w.rules.run_words(w, words, child, ctx, nd)
    if assigns:
        # Prefix assignments last for one command only; what the command itself set
        # (`IFS= read -r GIT_X`) stays.
        before, after = dict(st.env), dict(ok.env)
        for a in assigns:
            name = a.child_by_field_name("name")
            key = _text(name, ctx) if name is not None else ""
            if key in before:
                after[key] = before[key]
            else:
                after.pop(key, None)
        ok = replace(ok, env=tuple(sorted(after.items())))
    return ok, join(st, ok)


def _assign(node: Node, st: State, ctx: Ctx) -> State:
    name = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    key = _text(name, ctx) if name is not None else ""
    if not _TRACKED_ENV.match(key):
        return st
    if value is None:
        return st.with_env(key, "")
    v = word(value, ctx)
    return st.with_env(key, v.text if v.literal else None)


def _assignments(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    st = w.substitutions(node, st, ctx, nd)
    items = [node] if node.type == "variable_assignment" else node.named_children
    _code_in_values(w, items, ctx)
    nameref = node.type == "declaration_command" and any(
        c.type == "word" and _text(c, ctx).startswith("-") and "n" in _text(c, ctx)
        for c in node.named_children
    )
    for a in items:
        if a.type == "variable_assignment":
            st = _assign(a, st, ctx)
            if nameref:
                st = _nameref(w, a, st, ctx)
    return st, st


def _nameref(w: Walker, node: Node, st: State, ctx: Ctx) -> State:
    """`declare -n ref=NAME`: assigning `ref` later sets NAME, so a tracked NAME holds
    a value the text does not tie to it; a target not known from the text is doubted."""
    value = node.child_by_field_name("value")
    if value is None:
        return st
    target = word(value, ctx)
    if not target.literal or DYN in target.text:
        w.doubt(Reason.DYNAMIC_ARGUMENT)
        return st
    name = target.text.split("[", 1)[0]
    return st.with_env(name, None) if _TRACKED_ENV.match(name) else st


def _unset(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    st = w.substitutions(node, st, ctx, nd)
    for c in node.named_children:
        st = st.without_env(_text(c, ctx))
    return st, st


def _only_substitutions(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    st = w.substitutions(node, st, ctx, nd)
    if node.type == "test_command":
        stack = list(node.children)
        while stack:
            n = stack.pop()
            if n.type == "raw_string" and subscript_code(_text(n, ctx)):
                w.doubt(Reason.SHELL_STARTUP)
            stack.extend(n.children)
    return st, st


def _redirected(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    body = node.child_by_field_name("body")
    redirs = [c for c in node.named_children if c.type.endswith("_redirect")]
    last = body
    while last is not None and last.type in ("list", "pipeline"):
        kids = [c for c in last.named_children if c.type != "comment"]
        last = kids[-1] if kids else None
    if last is not None and last is not body and last != body:
        w.attached.setdefault((last.start_byte, last.end_byte), []).extend(redirs)
    else:
        st = w.redirects(redirs, st, ctx, nd)
    if body is not None and body.type == "command":
        _fed_text(w, body, redirs, ctx)
    ok, after = (st, st) if body is None else w.stmt(body, st, ctx, nd)
    for r in redirs:
        if r.type == "heredoc_redirect":
            ok, after = _heredoc_tail(w, r, ok, after, ctx, nd)
    return ok, after


def _fed_text(w: Walker, command: Node, redirs: list[Node], ctx: Ctx) -> None:
    """A here-doc or here-string handed to a program that may run it (`python3 -`)."""
    fed = [r for r in redirs if r.type in ("heredoc_redirect", "herestring_redirect")]
    name = command.child_by_field_name("name")
    if not fed or name is None:
        return
    prog = posixpath.basename(
        word(name.named_children[0] if name.named_children else name, ctx).text
    )
    if prog in w.rules.fed_text_safe:
        return
    if any(w.rules.looks_like_delivery(_text(r, ctx)) for r in fed):
        w.doubt(Reason.DELIVERY_IN_ARGUMENT)


def _heredoc_tail(w: Walker, r: Node, ok: State, after: State, ctx: Ctx, nd: int) -> Pair:
    """`cat <<EOF && next`: the grammar keeps what follows a here-doc inside it."""
    op = next((c.type for c in r.children if c.type in ("&&", "||", "|", "|&", ";")), None)
    tail = [c for c in r.named_children if c.type in _STATEMENTS]
    if not tail:
        return ok, after
    if op in ("|", "|&"):
        return w.pipeline(tail, after, ctx, nd)
    start = ok if op == "&&" else after
    ok2, after2 = w.block(tail, start, ctx, nd)
    return (join(ok, ok2) if op == "||" else ok2), join(after, after2)


def _list(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    named = [c for c in node.children if c.is_named and c.type != "comment"]
    op = next((c.type for c in node.children if c.type in ("&&", "||")), "&&")
    if len(named) != 2:
        w.doubt(Reason.UNKNOWN_CONSTRUCT)
        return st.tainted(), st.tainted()
    ok_a, any_a = w.stmt(named[0], st, ctx, nd)
    if op == "&&":
        ok_b, any_b = w.stmt(named[1], ok_a, ctx, nd)
        return ok_b, join(any_a, any_b)
    ok_b, any_b = w.stmt(named[1], any_a, ctx, nd)
    return join(ok_a, ok_b), join(any_a, any_b)


def _pipeline(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    elements = [c for c in node.named_children if c.type != "comment"]
    return w.pipeline(elements, st, ctx, nd)


def _subshell(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    ok, after = w.block(node.children, st, ctx, nd)
    return st.world(ok), st.world(after)


def _compound(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    return w.block(node.children, st, ctx, nd)


def _negated(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    ok, after = w.block(node.children, st, ctx, nd)
    return after, join(ok, after)


def _if(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    return _branches(w, list(node.children), st, ctx, nd)


def _branches(w: Walker, kids: list[Node], st: State, ctx: Ctx, nd: int) -> Pair:
    """`if COND; then BODY; [elif ...|else ...] fi` from its children."""
    cond: list[Node] = []
    body: list[Node] = []
    rest: Node | None = None
    seen_then = False
    for c in kids:
        if c.type == "then":
            seen_then = True
        elif c.type in ("elif_clause", "else_clause"):
            rest = c
            break
        elif c.is_named:
            (body if seen_then else cond).append(c)
    ok_c, any_c = w.block(cond, st, ctx, nd)
    ok_b, any_b = w.block(body, ok_c, ctx, nd)
    if rest is None:
        ok_r, any_r = any_c, any_c
    elif rest.type == "else_clause":
        ok_r, any_r = w.block(rest.children, any_c, ctx, nd)
    else:
        ok_r, any_r = _branches(w, list(rest.children), any_c, ctx, nd)
    return join(ok_b, ok_r), join(any_b, any_r)


def _while(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    parts = [c for c in node.children if c.is_named]
    expanded: list[Node] = []
    for c in parts:
        expanded.extend(c.children if c.type == "do_group" else [c])
    return w.loop(expanded, st, ctx, nd)


def _for(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    body = node.child_by_field_name("body")
    var = node.child_by_field_name("variable")
    if var is not None and _TRACKED_ENV.match(_text(var, ctx)):
        st = st.with_env(_text(var, ctx), None)  # `for GIT_X in ...`: each value in turn
    for c in node.named_children:
        if c is not body and c != body:
            st = w.substitutions(c, st, ctx, nd)
    if body is None:
        return st, st
    return w.loop(list(body.children), st, ctx, nd)


def _case(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    value = node.child_by_field_name("value")
    if value is not None:
        st = w.substitutions(value, st, ctx, nd)
    ok_all, any_all = st, st
    for item in node.named_children:
        if item.type != "case_item":
            continue
        for pattern in item.named_children:
            if pattern.type not in _STATEMENTS:
                st = w.substitutions(pattern, st, ctx, nd)  # patterns expand too
        stmts = [c for c in item.named_children if c.type in _STATEMENTS]
        ok, after = w.block(stmts, st, ctx, nd)
        ok_all, any_all = join(ok_all, ok), join(any_all, after)
    return ok_all, any_all


def _function(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    name = node.child_by_field_name("name")
    body = node.child_by_field_name("body")
    if name is not None and body is not None:
        if _text(name, ctx) == "command_not_found_handle":
            w.doubt(Reason.EVAL)  # runs for every unknown command name
        ctx.funcs[_text(name, ctx)] = body
    return st, st


def _comment(w: Walker, node: Node, st: State, ctx: Ctx, nd: int) -> Pair:
    return st, st


_HANDLERS: dict[str, Callable[[Walker, Node, State, Ctx, int], Pair]] = {
    "command": _command,
    "redirected_statement": _redirected,
    "list": _list,
    "pipeline": _pipeline,
    "subshell": _subshell,
    "compound_statement": _compound,
    "do_group": _compound,
    "negated_command": _negated,
    "if_statement": _if,
    "while_statement": _while,
    "for_statement": _for,
    "c_style_for_statement": _for,
    "select_statement": _for,
    "case_statement": _case,
    "function_definition": _function,
    "variable_assignment": _assignments,
    "variable_assignments": _assignments,
    "declaration_command": _assignments,
    "unset_command": _unset,
    "test_command": _only_substitutions,
    "comment": _comment,
}


#: A subscript that Bash evaluates as arithmetic with an expansion in it
#: (`a[$(cmd)]`): the expansion runs when the name is used (`let`, `declare`,
#: `test -v`, `printf -v`, `read`, `(( ))`, `$(( ))`).
_SUBSCRIPT_CODE = re.compile(r"\[[^\]]*(\$\(|`|\$\{|\x00)")


def subscript_code(text: str) -> bool:
    """Whether `text`, used as a name or in arithmetic, would run a command."""
    return bool(_SUBSCRIPT_CODE.search(text))


def expands_code(text: str | None) -> bool:
    """Whether a prompt-like value (`PS4`; None: unknown) holds anything Bash expands
    when it prints it: a `$` expansion, a backquote, or a part unknown before the
    command runs."""
    return text is None or any(c in text for c in ("$", "`", DYN))


def _code_in_values(w: Walker, nodes: list[Node], ctx: Ctx) -> None:
    """Assignment values and declared names that hold a subscript Bash would evaluate
    later (`x='a[$(cmd)]'`, `declare 'a[$(cmd)]'`), and single-quoted text in a `[[ ]]`
    test (`[[ -v 'a[$(cmd)]' ]]`): code the command hides from its own syntax."""
    for n in nodes:
        if n.type == "variable_assignment":
            value = n.child_by_field_name("value")
            if value is not None and subscript_code(word(value, ctx).text):
                w.doubt(Reason.SHELL_STARTUP)
        elif n.type in ("raw_string", "string", "word", "concatenation") and subscript_code(
            word(n, ctx).text
        ):
            w.doubt(Reason.SHELL_STARTUP)


def split_words(text: str) -> list[Word] | None:
    """Words of a string split the shell's way (`env -S`, git aliases), or None."""
    try:
        return [Word(t) for t in shlex.split(text)]
    except ValueError:
        return None
