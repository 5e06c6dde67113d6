"""What one simple command does, for the shell analyser: builtins, wrappers, shells.

A wrapper (`sudo`, `env`, `time`, `xargs`, ...) is followed to the command it runs; an
option a wrapper table does not know makes the command undeterminable, since its
argument count is then unknown. Programs this module does not know may change any file
or the index, which matters only when a commit follows in the same command. Code the
command hands a program that executes it (an interpreter's inline code, awk and sed
programs that run commands, a script the command wrote) is undeterminable
(`code_text` reads which arguments are code).
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from dataclasses import replace

from orchestrator.git.program_settings import is_user_config_file
from orchestrator.shell.code_text import (
    AWKS,
    INTERPRETERS,
    SEDS,
    awk_program,
    awk_runs,
    interpreter_code,
    sed_runs,
    sed_scripts,
)
from orchestrator.shell.git_rules import run_git
from orchestrator.shell.records import DYN, Ctx, Reason, State, Stop, Word
from orchestrator.shell.walk import (
    _TRACKED_ENV,
    CommandRules,
    Walker,
    expands_code,
    normpath,
    split_words,
    subscript_code,
)


def _names(text: str) -> frozenset[str]:
    """A set of names written as one space-separated string (tables read better so)."""
    return frozenset(text.split())


SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash"})
FOREIGN_SHELLS = frozenset({"fish", "csh", "tcsh", "pwsh", "powershell", "nu", "xonsh", "elvish"})
READ_ONLY = _names(""": true false echo printf test [ pwd type which whereis wait sleep exit return shift
    break continue set shopt umask ulimit jobs kill help let read getopts local cat head
    tail wc grep egrep fgrep rg ag less more file stat du df basename dirname realpath
    readlink seq expr tr cut uniq jq yq diff cmp comm date whoami id uname hostname
    printenv tree md5sum sha1sum sha256sum sha512sum hexdump od xxd strings column nl
    fold fmt ls exa eza sort bat fd locate cal env_check tput clear reset history
    fc times caller declare typeset readonly export unalias times ps top pgrep""")
RESERVED = _names(
    "{ } ( ) [[ ]] (( )) ! if then else elif fi case esac for select while until do done in function coproc"
)
# Programs that only store or show text fed to them (here-docs, here-strings).
FED_TEXT_SAFE = READ_ONLY | frozenset({"tee", "git"}) | SHELLS
# Writers whose path arguments may name protected places (.git/**, orchestrate config).
WRITERS = _names("""cp mv tee ln install touch rm rmdir unlink chmod chown chgrp mkdir truncate dd
    rsync sed gsed patch shred mkfifo""")
#: Writers that change a file's mode, owner or existence, not its bytes.
_NOT_CONTENT = _names("touch rm rmdir unlink chmod chown chgrp mkdir shred mkfifo")
#: Builtins that evaluate a name or an expression as arithmetic, array subscripts
#: included (`a[$(cmd)]` runs cmd): a word unknown before the command runs may hold one.
_EVALUATES_NAMES = _names(
    "let read test [ printf unset mapfile readarray wait declare typeset readonly local export"
)
#: Files a program reads its own steps from without being told (`make` its Makefile,
#: `npm` package.json, `pytest` conftest.py, ...): written by the command, then run.
_IMPLICIT_SCRIPTS = _names("""Makefile makefile GNUmakefile package.json conftest.py justfile Justfile
    Rakefile noxfile.py setup.py build.rs CMakeLists.txt tox.ini pytest.ini .npmrc
    pyproject.toml .pre-commit-config.yaml Taskfile.yml Taskfile.yaml pom.xml build.gradle
    build.gradle.kts settings.gradle Gemfile composer.json deno.json Cargo.toml go.mod""")
#: Files a shell runs by itself on starting (login, interactive, or any zsh).
_SHELL_STARTUP_FILES = _names(""".bashrc .bash_profile .bash_login .profile .bash_logout
    .zshenv .zshrc .zprofile .zlogin .kshrc .mkshrc .shrc .inputrc""")
#: Source files whose language's tools run the sources they find, not only those named:
#: suffixes -> the programs (besides that language's interpreters).
_SOURCE_RUNNERS: tuple[tuple[tuple[str, ...], frozenset[str]], ...] = (
    ((".py", ".pth", ".pyc"), _names("pytest py.test tox nox")),
    ((".go",), _names("go")),
    ((".rs",), _names("cargo rustc")),
    (
        (".js", ".mjs", ".cjs", ".ts", ".jsx", ".tsx"),
        _names("npm npx yarn pnpm bun deno jest vitest mocha tsx ts-node"),
    ),
    ((".rb",), _names("rake rspec bundle rails")),
)

#: Programs that fetch or unpack files under names they pick (a URL's last part, an
#: archive's members, a name without `.gz`): what they wrote cannot be named.
_NAME_PICKERS = _names("""wget wget2 aria2c axel lftp scp sftp tar bsdtar gtar unzip 7z 7za 7zr
    unrar cpio ar pax gunzip gzip bunzip2 bzip2 unxz xz unzstd zstd unlz4 lz4 uncompress
    jar ditto split csplit""")
#: Their short options taking a folder, the value attached (`tar -C/opt/bin`, `unzip
#: -d$HOME/bin`, `7z x -o$HOME/bin`, `wget -P/opt/bin`, `cpio -D/opt/bin`).
_ATTACHED_FOLDERS = _names("-C -d -o -P -D")
#: Subcommands that download under names they pick (`pip download`, `npm pack`).
_PICKING_SUBCOMMANDS = {
    "pip": frozenset({"download", "wheel"}),
    "pip3": frozenset({"download", "wheel"}),
    "npm": frozenset({"pack"}),
}
#: curl options that make it pick the file's name (`-O`, `-J`, `--output-dir`, a
#: config file that may say anything); short ones as letters of a bundle.
_CURL_PICKS = _names("""--remote-name --remote-name-all --remote-header-name --output-dir
    --config --create-dirs""")
_CURL_PICK_LETTERS = frozenset("OJK")
#: curl's short options that take a value (the rest of a bundle, or the next word).
_CURL_VALUE_LETTERS = frozenset("AbcCdDeEFHmoPQrtTuUwxXyYz")
#: Programs the read-only table lets through that can also write a file their
#: arguments name (`sort -o F`, `uniq IN OUT`, `xxd -r IN OUT`, `tree -o F`, a log file).
_READ_ONLY_WRITERS = _names("sort uniq xxd tree less more history od fmt")

# wrapper: (short options taking a value, short flags, long options taking a value,
# long flags, positional words before the command)
#: Program names that are git itself (`hub` wraps git and passes commands through).
_GIT_PROGRAMS = frozenset({"git", "hub"})
_WRAPPERS: dict[str, tuple[str, str, frozenset[str], frozenset[str], int]] = {
    "sudo": (
        "ughpCDrtUTc",
        "AbEeHiKklnPSsVvBN",
        _names(
            "user group host prompt close-from chdir role type other-user command-timeout chroot"
        ),
        _names(
            "askpass background preserve-env edit set-home login remove-timestamp "
            "reset-timestamp list non-interactive preserve-groups stdin shell version "
            "validate bell no-update"
        ),
        0,
    ),
    "doas": ("uC", "ns", frozenset(), frozenset(), 0),
    "command": ("", "p", frozenset(), frozenset(), 0),
    "builtin": ("", "", frozenset(), frozenset(), 0),
    "exec": ("a", "cl", frozenset(), frozenset(), 0),
    "time": (
        "fo",
        "pavq",
        frozenset({"format", "output"}),
        frozenset({"portability", "append", "verbose", "quiet"}),
        0,
    ),
    "nice": ("n", "", frozenset({"adjustment"}), frozenset(), 0),
    "nohup": ("", "", frozenset(), frozenset(), 0),
    "timeout": (
        "sk",
        "v",
        frozenset({"signal", "kill-after"}),
        frozenset({"preserve-status", "foreground", "verbose"}),
        1,
    ),
    "stdbuf": ("ioe", "", frozenset({"input", "output", "error"}), frozenset(), 0),
    "setsid": ("", "cfw", frozenset(), frozenset({"ctty", "fork", "wait"}), 0),
    "ionice": ("cnp", "tu", frozenset({"class", "classdata", "pid"}), frozenset(), 0),
    "taskset": ("", "acp", frozenset(), frozenset({"all-tasks", "cpu-list", "pid"}), 1),
    "chrt": ("T", "abdefiopmrRv", frozenset(), frozenset(), 1),
    "flock": (
        "wEc",
        "sxunoFe",
        frozenset({"timeout", "conflict-exit-code", "command"}),
        _names("shared exclusive unlock nonblock nb close no-fork verbose fcntl"),
        1,
    ),
    "unbuffer": ("", "p", frozenset(), frozenset(), 0),
    "caffeinate": ("tw", "dimsu", frozenset(), frozenset(), 0),
    "nocorrect": ("", "", frozenset(), frozenset(), 0),
    "noglob": ("", "", frozenset(), frozenset(), 0),
    "xargs": (
        "adEIiLlnPs",
        "0oprtx",
        _names(
            "arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var"
        ),
        _names("null open-tty interactive no-run-if-empty verbose exit"),
        0,
    ),
    "watch": (
        "nq",
        "bcdegtxwpr",
        frozenset({"interval", "equexit"}),
        _names(
            "beep color differences errexit chgexit exec no-title no-wrap precise "
            "no-rerun no-linewrap"
        ),
        0,
    ),
}
_OPTIONAL_ATTACHED = {"xargs": "eil", "nice": ""}


def protected_write(path: str, cwd: str | None) -> Reason | None:
    """The forbidden reason when writing `path` (from `cwd`) would touch `.git/**`, a
    git configuration file read for every repository (`~/.gitconfig`, `git/config`),
    `.orchestrate/**`, `orchestrate.toml` or `.orchestrate-secrets-allow`; pattern parts
    count if they could match."""
    pattern = path.replace(DYN, "*")
    full = normpath(cwd, pattern) or pattern
    parts = [p for p in full.split("/") if p]
    for part in parts:
        low = part.casefold().rstrip(". ")
        wild = any(c in part for c in "*?[")
        if low == ".git" or (wild and fnmatch.fnmatchcase(".git", low)):
            return Reason.GIT_DIR_WRITE
        if low == ".orchestrate" or (wild and fnmatch.fnmatchcase(".orchestrate", low)):
            return Reason.ORCHESTRATE_CONFIG_WRITE
    if parts and parts[-1].casefold() in ("orchestrate.toml", ".orchestrate-secrets-allow"):
        return Reason.ORCHESTRATE_CONFIG_WRITE
    if is_user_config_file([p.casefold() for p in parts]):
        return Reason.GIT_DIR_WRITE  # `~/.gitconfig`: any setting, for every repository
    return None


def run_words(w: Walker, words: list[Word], st: State, ctx: Ctx, nd: int) -> State:
    """Run one simple command given as words; return the state if it succeeds."""
    w.step()
    if not words:
        return st
    name = words[0]
    if not name.literal:
        w.doubt(Reason.DYNAMIC_COMMAND_NAME)
        return st.tainted()
    prog, args = name.text, words[1:]
    if prog in RESERVED:
        # A reserved word in command position means the grammar took a compound
        # command (`time { ...; }`, `! { ...; }`) for a simple one: do not guess.
        w.doubt(Reason.UNKNOWN_CONSTRUCT)
        return st.tainted()
    base = posixpath.basename(prog)
    _startup_code(w, st)
    if "/" not in prog and (_found_elsewhere(w, st) or _found_on_path(w, prog, ctx)):
        w.doubt(Reason.SCRIPT_WRITTEN_THEN_RUN)  # `PATH=.:$PATH t` after writing t
    if "/" in prog:
        _runs_written(w, Word(prog), st)
    if "/" not in prog and prog in _EVALUATES_NAMES:
        _evaluated_names(w, prog, args)
    if "/" not in prog and prog in _ASSIGNS_READ_VALUE:
        st = _assigned_unknown(prog, args, st)
    if "/" not in prog and _runs_shell_text(prog, args):
        w.doubt(Reason.EVAL)
    if "/" not in prog:
        if prog in ctx.funcs:
            return _call_function(w, ctx.funcs[prog], st, ctx, nd)
        builtin = _BUILTINS.get(prog)
        if builtin is not None:
            return builtin(w, args, st, ctx, nd)
    if base in _GIT_PROGRAMS:
        return run_git(w, args, st, ctx)
    if base == "env":
        return _env(w, args, st, ctx, nd)
    if base in _WRAPPERS:
        return _wrapper(w, base, args, st, ctx, nd)
    if base == "busybox":
        return run_words(w, args, st, ctx, nd)
    if base in SHELLS and any(
        posixpath.basename(p) in _SHELL_STARTUP_FILES for p in w.written | w.maybe_written
    ):
        w.doubt(Reason.SCRIPT_WRITTEN_THEN_RUN)  # `bash -l` reads the `.profile` written
    if base in SHELLS:
        return _shell(w, args, st, ctx)
    if base in FOREIGN_SHELLS:
        w.doubt(Reason.FOREIGN_SHELL)
        return st.tainted()
    if base == "find":
        return _find(w, args, st, ctx, nd)
    if base in SEDS:
        _sed(w, args, st)
    if base in WRITERS:
        content = base not in _NOT_CONTENT
        if base in _WRITERS_PICKING_NAMES:
            w.maybe_unnamed = w.fetched = True  # the names come from a diff, a host
        if base in _TREE_COPIERS:
            w.written_trees.update(_copy_destinations(args, st))
        for a in args:
            if not a.text.startswith("-") or "=" in a.text:
                path = a.text.split("=", 1)[1] if a.text.startswith("of=") else a.text
                w.write_target(Word(path, a.glob), st, content)
        if base in _TREE_COPIERS:
            _copied_onto_path(w, base, args, st)
        return replace(st, worktree_changed=True)
    if base in ("su", "runuser", "script"):
        return _command_option(w, args, st, ctx)
    if base in AWKS:
        return _awk(w, args, st)
    if base in READ_ONLY:
        if base in _READ_ONLY_WRITERS:
            _may_write(w, base, args, st)
        return st
    if looks_like_delivery(" ".join(a.text for a in args)):
        # A program handed text that reads like a delivery (`ssh host 'git push'`,
        # `python -c "...git commit..."`) may run it: do not call it harmless.
        w.doubt(Reason.DELIVERY_IN_ARGUMENT)
    interpreter = _interpreter(base)
    outputs = args
    _runs_carried(w, args, st)
    if interpreter is not None:
        script = _interpret(w, interpreter, args, st)
        outputs = [a for a in args if a is not script]  # the script is read, not written
    else:
        if (
            w.written_unknown
            or w.fetched
            or any(posixpath.basename(p) in _IMPLICIT_SCRIPTS for p in w.written | w.maybe_written)
        ):
            w.doubt(Reason.SCRIPT_WRITTEN_THEN_RUN)  # `make` after writing its Makefile
    if base in _MAKES:
        for path in _makefiles(args):
            _runs_written(w, path, st)
    if _runs_sources(base, interpreter, w.written | w.maybe_written):
        # Python imports (and pytest collects) the sources of its folders by name
        # (`-m t`, `import json` met by a `json.py` this command wrote, `test_x.py`);
        # `go run .`, `go generate`, `cargo run`, `npx jest`, `rake` likewise.
        w.doubt(Reason.SCRIPT_WRITTEN_THEN_RUN)
    # An interpreter's variable arguments are what its script reads, most often
    # (`for f in *.py; do python3 -m py_compile $f; done`): only its named ones count.
    _may_write(w, base, outputs, st, dynamic=interpreter is None)
    return st.tainted()


#: Writers that may fill a destination folder with whatever they copy.
_TREE_COPIERS = _names("cp mv rsync install ln")


def _copy_destinations(args: list[Word], st: State) -> set[str]:
    """Where `cp/mv/rsync/install/ln ARGS` may write a whole tree: its `-t DIR` /
    `--target-directory=DIR`, else its last operand (folders this command may fill)."""
    out: set[str] = set()
    operands: list[Word] = []
    for i, a in enumerate(args):
        t = a.text
        if t.startswith("--target-directory="):
            out.add(t.split("=", 1)[1])
        elif t == "-t" and i + 1 < len(args):
            out.add(args[i + 1].text)
        elif not t.startswith("-"):
            operands.append(a)
    if not out and operands:
        out.add(operands[-1].text)
    return {p for p in (normpath(st.cwd, t) for t in out) if p is not None}


#: Writers read here whose files are named by what they read (a diff, another host).
_WRITERS_PICKING_NAMES = _names("patch rsync")
_MAKES = _names("make gmake bmake remake")


def _runs_sources(base: str, interpreter: str | None, written: set[str]) -> bool:
    """Whether `base` (its interpreter-table name `interpreter`) may run a source file
    this command wrote without being named it: one of its language's suffixes."""
    family = (interpreter or "").rstrip("0123456789.")
    for suffixes, programs in _SOURCE_RUNNERS:
        runs = base in programs or family in _INTERPRETER_FAMILY.get(suffixes[0], ())
        if runs and any(p.endswith(suffixes) for p in written):
            return True
    return False


#: The interpreter-table names (less their version) that run a suffix's sources.
_INTERPRETER_FAMILY = {".py": ("python", "pypy"), ".js": ("node",), ".rb": ("ruby",)}


def _found_on_path(w: Walker, prog: str, ctx: Ctx) -> bool:
    """A command name that is the name of a file this command wrote into a folder
    (`install /tmp/x ~/.local/bin/y && y`, `curl -o bin/git ... && git status`, `cp x
    ~/.local/bin/git && git status`): a folder on `PATH` holds it, perhaps, so the
    program found may be that file. After a file of a name the text does not hold went
    into a folder outside the start tree (`tar xf a.tar -C ~/.local/bin`, `cp -r d
    ~/bin`, `> "$F"`), any program looked up by name may be one (not a function or a
    builtin: Bash finds those first). A file written into the start folder is found
    only on a `PATH` this command changed (`_found_elsewhere`)."""
    if prog.casefold() in w.path_names:
        return True
    if w.path_unknown and prog not in ctx.funcs and prog not in SHELL_BUILTINS:
        return True
    return any(
        posixpath.basename(p) == prog and posixpath.dirname(p) not in ("", ".")
        for p in w.written | w.maybe_written
    )


#: Bash's builtins: a name among them runs the builtin, not a program on `PATH`
#: (`exec NAME` does look one up: see `_wrapper`).
SHELL_BUILTINS = _names(""": . [ alias bg bind break builtin caller cd command compgen complete
    compopt continue declare dirs disown echo enable eval exec exit export false fc fg
    getopts hash help history jobs kill let local logout mapfile popd printf pushd pwd read
    readarray readonly return set shift shopt source suspend test times trap true type
    typeset ulimit umask unalias unset wait""")
#: Copy options that copy folders whole (the names of what lands are not in the text).
_RECURSIVE_COPY = _names("-r -R -a --recursive --archive")


def _copied_onto_path(w: Walker, base: str, args: list[Word], st: State) -> None:
    """What `cp/install/mv/rsync/ln ARGS` may put into its destination, for
    `Walker.lands_on_path`: `cp` and `install` of files land each under its own name
    in a destination folder (or under the destination's name, noted as a write);
    `mv`, `rsync`, `ln` and a recursive `cp` may land a folder whose files the text
    does not name (`mv d ~/.local/bin` when that folder does not exist yet)."""
    targets: list[str] = []
    operands: list[Word] = []
    recursive = base not in ("cp", "install")
    value_next = False
    for a in args:
        t = a.text
        if value_next:
            targets.append(t)
            value_next = False
        elif t.startswith("--target-directory="):
            targets.append(t.split("=", 1)[1])
        elif t == "--target-directory" and base != "rsync":
            value_next = True
        elif t.startswith("-") and t[1:2] != "-" and "t" in t and base != "rsync":
            # `-t DIR`, `-Dt DIR`, `-rtDIR`: the rest of the bundle, else the next word
            head, _, rest = t.partition("t")
            recursive = recursive or any(c in "rRa" for c in head)
            if rest:
                targets.append(rest)
            else:
                value_next = True
        elif t.startswith("-"):
            short = t[1:] if not t.startswith("--") else ""
            recursive = recursive or t in _RECURSIVE_COPY or any(c in "rRa" for c in short)
        else:
            operands.append(a)
    if not targets and operands:
        targets, operands = [operands[-1].text], operands[:-1]
    for folder in targets:
        if recursive:
            w.lands_on_path(folder, st, named=False)
            continue
        for source in operands:
            name = posixpath.basename(source.text.rstrip("/")) or DYN
            w.lands_on_path(folder.rstrip("/") + "/" + (name if source.literal else DYN), st)


def _runs_carried(w: Walker, args: list[Word], st: State) -> None:
    """A program not read here may run a command line its arguments carry (`strace
    bash x.sh`, `valgrind ./x`, `xvfb-run sh x.sh`, `docker exec c bash x.sh`,
    `poetry run bash x.sh`): a shell or interpreter word among them runs the script
    word after it, and a word spelled as a path to a program (`./x`, `/tmp/x`) may be
    run itself. Either, naming a file this command wrote, is undeterminable. (A Go
    package pattern, `./...`, names no file.)"""
    for i, a in enumerate(args):
        if not a.literal:
            continue
        name = posixpath.basename(a.text)
        if name in SHELLS or _interpreter(name) is not None:
            rest = args[i + 1 :]
            script = next((x for x in rest if not x.text.startswith(("-", "+"))), None)
            if script is not None:
                _runs_written(w, script, st)
        elif a.text.startswith(("./", "/", "~/")) and "..." not in a.text:
            _runs_written(w, a, st)


def _found_elsewhere(w: Walker, st: State) -> bool:
    """A command looked up on a `PATH` this command changed, after it wrote a file: the
    program found may be that file (`curl -o git ... && PATH=.:$PATH git status`)."""
    changed = any(k == "PATH" for k, _ in st.env)
    wrote = w.written or w.written_unknown or w.maybe_written or w.maybe_unnamed
    return changed and bool(wrote)


#: Options naming where a program writes its output (checked against protected places).
_OUTPUT_OPTIONS = _names("""-o -O --output --out --output-dir --output-document -P
    --directory-prefix -d -C --directory --dest --destination --target-directory""")
#: Those of them naming a folder that receives files under names the program picks.
_FOLDER_OPTIONS = _names("""--output-dir -P --directory-prefix -d -C --directory --dest
    --destination --target-directory""")


def _makefiles(args: list[Word]) -> list[Word]:
    """The files `make ARGS` reads its rules from: `-f F` / `--file=F` / `--makefile F`,
    and the default names inside each `-C DIR`."""
    out: list[Word] = []
    folder = "."
    i = 0
    while i < len(args):
        a, t = args[i], args[i].text
        nxt = args[i + 1] if i + 1 < len(args) else None
        if t in ("-f", "--file", "--makefile") and nxt is not None:
            out.append(nxt)
            i += 1
        elif t.startswith(("--file=", "--makefile=")):
            out.append(Word(t.split("=", 1)[1], a.glob) if a.literal else a)
        elif t.startswith("-f") and not t.startswith("--"):
            out.append(Word(t[2:], a.glob) if a.literal else a)
        elif t in ("-C", "--directory") and nxt is not None:
            folder = nxt.text if nxt.literal else DYN
            i += 1
        elif t.startswith("--directory="):
            folder = t.split("=", 1)[1]
        elif t.startswith("-C") and not t.startswith("--"):
            folder = t[2:]
        i += 1
    if folder != ".":
        out += [Word(posixpath.join(folder, n)) for n in ("GNUmakefile", "makefile", "Makefile")]
    return out


def _may_write(w: Walker, base: str, args: list[Word], st: State, dynamic: bool = True) -> None:
    """A program not read here may write any file its arguments name (`curl -o x`,
    `go build -o app`, `gen out.sh`), or one they do not (a variable; a downloader or
    unpacker picking the names): note them, so that running one of them later in the
    same command is undeterminable; with `dynamic` False (an interpreter), a variable
    argument is not taken as an unnamed file. Nothing is refused here, except an
    output option aimed at a protected place."""
    verbs = _PICKING_SUBCOMMANDS.get(base, frozenset())
    picks = (
        base in _NAME_PICKERS
        or (base == "curl" and _curl_picks_names(args))
        or any(a.text in verbs for a in args[:2])
    )
    if picks:
        w.maybe_unnamed = w.fetched = True
        w.lands_on_path(".", st, named=False)  # into the shell's folder, wherever it is
    for i, a in enumerate(args):
        text = a.text.split("=", 1)[1] if a.text.startswith("-") and "=" in a.text else a.text
        output = a.text.split("=", 1)[0] in _OUTPUT_OPTIONS and "=" in a.text
        prev = args[i - 1].text if i > 0 else ""
        bundle = prev[:1] == "-" and prev[1:2] != "-" and prev[-1:] in "oOPdC"
        bundle = bundle or (base in _NAME_PICKERS and prev[:1] == "-" and prev[-1:] == "D")
        output = output or prev in _OUTPUT_OPTIONS or bundle or picks
        if output and not text.startswith("-"):
            reason = protected_write(text, st.cwd)  # `curl -o .git/hooks/pre-commit`
            if reason is not None:
                w.forbid(reason)
        option = a.text.split("=", 1)[0] if "=" in a.text else prev
        if option in _OUTPUT_OPTIONS or bundle:
            # `curl -o ~/.local/bin/git`, `tar -C ~/.local/bin`, `unzip -d ~/bin`
            folder = option in _FOLDER_OPTIONS or (bundle and prev[-1:] in "PdCD")
            w.lands_on_path(text, st, named=not folder)
            _names_target(w, a, text, st)
        elif base in _NAME_PICKERS and a.text[:2] in _ATTACHED_FOLDERS and len(a.text) > 2:
            # `tar -C/opt/bin`, `unzip -d$HOME/bin`, `7z x -o$HOME/bin`, `wget -P/opt/bin`
            w.lands_on_path(a.text[2:], st, named=False)
            _names_target(w, a, a.text[2:], st)
        if not a.literal or DYN in text:
            w.maybe_unnamed = w.maybe_unnamed or dynamic
            name = posixpath.basename(text)
            if name and DYN not in name:
                w.maybe_written.add(text)  # `~/.profile`, `"$D/.bashrc"`: its name is known
            continue
        if a.text[:1] == "-" and a.text[1:2] not in ("-", "") and len(a.text) > 2:
            text = a.text[2:]  # `-ox.sh`, `gcc -oapp`: a short option's attached value
        if text.startswith("-") or not text:
            continue
        where = normpath(st.cwd, text)
        if where is None:
            w.maybe_unnamed = True
        else:
            w.maybe_written.add(where)


def _names_target(w: Walker, a: Word, text: str, st: State) -> None:
    """An output option's file or folder, known from the text, is one of the command's
    write targets (`Analysis.writes`: `tar xf a.tar -C .husky`, read by the router
    against the hooks folder)."""
    literal = a.literal and DYN not in text and not text.startswith("-")
    if literal and (seen := normpath(st.cwd, text)) is not None:
        w.write_targets.add(seen)


def _curl_picks_names(args: list[Word]) -> bool:
    """Whether curl writes under a name it picks (`-O`, `-J`, `--output-dir`, ...)."""
    for a in args:
        t = a.text
        if t == "--":
            break
        if t.startswith("--"):
            if t.split("=", 1)[0] in _CURL_PICKS:
                return True
        elif t.startswith("-"):
            for letter in t[1:]:
                if letter in _CURL_PICK_LETTERS:
                    return True
                if letter in _CURL_VALUE_LETTERS:
                    break  # the rest of the bundle is that option's value
    return False


def _interpreter(base: str) -> str | None:
    """The interpreter table's name for a program (`python3.12` -> `python3`), or None."""
    if base in INTERPRETERS:
        return base
    bare = re.sub(r"[0-9.]+$", "", base)
    for name in (bare + "3", bare):
        if name in INTERPRETERS and bare:
            return name
    return None


def _interpret(w: Walker, name: str, args: list[Word], st: State) -> Word | None:
    """A general interpreter runs a language not read here: inline code (`perl -e`,
    `python -c`, `node -e`, `vim -c`) or a program read from its input is
    undeterminable; a script file the same command wrote is too. Returns the script
    word, if any."""
    code = interpreter_code(name, args)
    if code is None or code:
        w.doubt(Reason.EXECUTES_TEXT)
        return None
    script = next((a for a in args if not a.text.startswith(("-", "+"))), None)
    if script is not None:
        _runs_written(w, script, st)
    return script


def _awk(w: Walker, args: list[Word], st: State) -> State:
    """awk reads: a program that can run a command or write a file (`system()`, a
    pipe, `print > FILE`, `@load`) is undeterminable; a program file is read as a
    program like any other (unless the command wrote it)."""
    if any(a.text.startswith(("-l", "--load")) for a in args):
        w.doubt(Reason.EXECUTES_TEXT)  # gawk loads a shared library: native code
        return st.tainted()
    program, from_file = awk_program(args)
    if from_file:
        for a in args:
            _runs_written(w, a, st)
        return st.tainted()
    if program is not None and awk_runs(program.text):
        w.doubt(Reason.EXECUTES_TEXT)
        return st.tainted()
    return st


def _sed(w: Walker, args: list[Word], st: State) -> None:
    """sed's `e` command and flag run a command, `w` writes a file: undeterminable
    unless `--sandbox` refuses them; a script file the command wrote is too."""
    scripts, from_file, sandbox = sed_scripts(args)
    if from_file:
        for a in args:
            _runs_written(w, a, st)
    if not sandbox and any(sed_runs(s.text) for s in scripts):
        w.doubt(Reason.EXECUTES_TEXT)


def _runs_written(w: Walker, path: Word, st: State) -> None:
    """A file run as a program or script: undeterminable when this command wrote it
    (or wrote a file it cannot name), since what it runs was never read."""
    if not (w.written or w.written_unknown or w.maybe_written or w.maybe_unnamed):
        return
    where = normpath(st.cwd, path.text) if path.literal else None
    if (
        w.written_unknown
        or w.maybe_unnamed
        or where is None
        or where in w.written
        or where in w.maybe_written
        or any(where.startswith(p.rstrip("/") + "/") for p in w.written_trees)
    ):
        # `cp -r d e && e/x.sh`, `mv d e`, `rsync -a d/ e/`: a folder written whole.
        w.doubt(Reason.SCRIPT_WRITTEN_THEN_RUN)


def _startup_code(w: Walker, st: State) -> None:
    """Code Bash runs by itself: `BASH_ENV` / `ENV` (sourced by a shell a program
    starts), `PROMPT_COMMAND`, and a `PS4` that expands anything (run on each traced
    line under `set -x`)."""
    env = dict(st.env)
    if any(env.get(k, "") != "" for k in ("BASH_ENV", "ENV", "PROMPT_COMMAND")):
        w.doubt(Reason.SHELL_STARTUP)
    if "PS4" in env and expands_code(env["PS4"]):
        w.doubt(Reason.SHELL_STARTUP)


#: Builtins that set a variable named by an argument to a value read at run time.
_ASSIGNS_READ_VALUE = _names("read mapfile readarray getopts printf")


def _runs_shell_text(prog: str, args: list[Word]) -> bool:
    """Builtins that run shell text as `eval` does: `fc` other than a listing re-runs
    (or edits, then runs) history entries, which `history -s TEXT` adds; `mapfile -C
    CALLBACK` / `readarray -C` runs CALLBACK as shell text for each batch of lines."""
    if prog == "fc":
        return not any(a.text[:1] == "-" and "l" in a.text[1:] for a in args)
    if prog in ("mapfile", "readarray"):
        return any(
            a.text[:1] == "-" and a.text[1:2] != "-" and "C" in a.text[1:].split("d", 1)[0]
            for a in args
        )
    return False


def _assigned_unknown(prog: str, args: list[Word], st: State) -> State:
    """The state after `read NAME`, `mapfile NAME`, `getopts OPTS NAME` or `printf -v
    NAME`: a tracked variable so named (`GIT_REFLOG_ACTION`, `GIT_SSH_COMMAND`, ...)
    holds a value the text does not show, as an assignment from a substitution does."""
    if prog == "printf":
        names = [args[i + 1].text for i, a in enumerate(args[:-1]) if a.text == "-v"]
        names += [a.text[2:] for a in args if a.text.startswith("-v") and len(a.text) > 2]
    else:
        names = [a.text for a in args if a.literal]
    for name in names:
        if _TRACKED_ENV.match(name):
            st = st.with_env(name, None)
    return st


def _evaluated_names(w: Walker, prog: str, args: list[Word]) -> None:
    """A builtin that evaluates names or arithmetic handed a subscript with an
    expansion (`let 'a[$(cmd)]'`), or a name unknown before the command runs where it
    evaluates one (`let "$v"`, `test -v "$v"`, `printf -v "$v"`, `read "$v"`)."""
    if any(subscript_code(a.text) for a in args):
        w.doubt(Reason.SHELL_STARTUP)
        return
    names: list[Word] = []
    if prog == "let":
        names = args
    elif prog in ("read", "mapfile", "readarray", "unset", "declare", "typeset"):
        names = [a for a in args if not a.text.startswith("-")]
    for i, a in enumerate(args[:-1]):
        if a.text == "-v":
            names.append(args[i + 1])
    if any(DYN in a.text for a in names):
        w.doubt(Reason.SHELL_STARTUP)


_DELIVERY_TEXT = re.compile(
    r"\bgit\b.*\b(commit|push|merge|pull|cherry-pick|am|rebase|revert|commit-tree|"
    r"update-ref|config)\b|hookspath|--no-verify|\.git/(hooks|config)",
    re.IGNORECASE | re.DOTALL,
)


def looks_like_delivery(text: str) -> bool:
    """True when free text handed to a program reads like a git delivery or bypass."""
    return bool(_DELIVERY_TEXT.search(text))


def _command_option(w: Walker, args: list[Word], st: State, ctx: Ctx) -> State:
    """`su [USER] -c CMD`, `runuser -c CMD`, `script -c CMD`: CMD runs in a shell;
    without one they read commands from their input. A login shell starts elsewhere."""
    login = any(
        a.text in ("-", "--login") or (a.text[:1] == "-" and a.text[1:2] != "-" and "l" in a.text)
        for a in args
    )
    if login:
        st = replace(st, cwd=None)
    for key, _ in st.env:
        st = st.with_env(key, None)  # the environment may or may not survive
    for i, a in enumerate(args):
        t = a.text
        if t.startswith("--command="):
            return _nested(w, Word(t.split("=", 1)[1], a.glob), st, ctx)
        short = t.startswith("-") and not t.startswith("--") and t.endswith("c")
        if (t == "--command" or short) and i + 1 < len(args):
            return _nested(w, args[i + 1], st, ctx)
    if any(a.text in ("-h", "--help", "-V", "--version") for a in args):
        return st
    w.doubt(Reason.SHELL_READS_STDIN)
    return st.tainted()


def _call_function(w: Walker, body: object, st: State, ctx: Ctx, nd: int) -> State:
    if ctx.depth + 1 > 2 * MAX_CALLS:
        raise Stop(Reason.NESTING_TOO_DEEP)
    ctx.depth += 1
    try:
        ok, _ = w.stmt(body, st, ctx, nd)
    finally:
        ctx.depth -= 1
    return ok


MAX_CALLS = 4


def _options(
    spec: tuple[str, str, frozenset[str], frozenset[str], int],
    args: list[Word],
    optional: str = "",
) -> tuple[int, list[tuple[str, str]]] | None:
    """Skip a wrapper's options: (index of the first other word, options seen), or
    None when an option is unknown or not literal."""
    with_arg, flags, long_arg, long_flags, _ = spec
    seen: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        a = args[i]
        t = a.text
        if t == "--":
            return i + 1, seen
        if not t.startswith("-") or t == "-":
            return i, seen
        if not a.literal:
            return None
        if t.startswith("--"):
            key, eq, val = t[2:].partition("=")
            if key in long_arg:
                if not eq:
                    if i + 1 >= len(args):
                        return None
                    val, i = args[i + 1].text, i + 1
                seen.append(("--" + key, val))
            elif key in long_flags and not eq:
                seen.append(("--" + key, ""))
            else:
                return None
            i += 1
            continue
        j = 1
        while j < len(t):
            c = t[j]
            if c in with_arg:
                val = t[j + 1 :]
                if not val:
                    if i + 1 >= len(args):
                        return None
                    val, i = args[i + 1].text, i + 1
                seen.append(("-" + c, val))
                break
            if c in optional:
                seen.append(("-" + c, t[j + 1 :]))
                break
            if c in flags or (c.isdigit() and spec is _WRAPPERS["nice"]):
                seen.append(("-" + c, ""))
                j += 1
                continue
            return None
        i += 1
    return i, seen


def _wrapper(w: Walker, name: str, args: list[Word], st: State, ctx: Ctx, nd: int) -> State:
    spec = _WRAPPERS[name]
    parsed = _options(spec, args, _OPTIONAL_ATTACHED.get(name, ""))
    if parsed is None:
        w.doubt(Reason.UNKNOWN_WRAPPER_OPTION)
        return st.tainted()
    i, seen = parsed
    opts = {k for k, _ in seen}
    if name == "command" and ({"-v", "-V"} & opts):
        return st
    if name == "flock" and ({"-c", "--command"} & opts):
        script = next(v for k, v in seen if k in ("-c", "--command"))
        return _nested(w, Word(script), st, ctx)
    rest = args[i + spec[4] :]
    planted = bool(rest) and (w.path_unknown or rest[0].text.casefold() in w.path_names)
    if name == "exec" and planted and rest[0].literal and "/" not in rest[0].text:
        w.doubt(Reason.SCRIPT_WRITTEN_THEN_RUN)  # `exec echo` runs a program on PATH
    if name == "flock" and len(rest) >= 2 and rest[0].text in ("-c", "--command"):
        return _nested(w, rest[1], st, ctx)  # `flock FILE -c CMD`
    if name in ("sudo", "doas"):
        if ({"-e", "-l", "-v", "-k", "-K", "-V", "--edit", "--list"} & opts) and not rest:
            return st
        if ({"-s", "-i", "--shell", "--login"} & opts) and not rest:
            w.doubt(Reason.SHELL_READS_STDIN)  # an interactive shell reads its input
            return st.tainted()
        rest, st = _leading_assignments(rest, st)
        if "-E" not in opts and "--preserve-env" not in opts:
            # sudo resets the environment: what the command set may or may not survive.
            for key, _ in st.env:
                st = st.with_env(key, None)
    if name == "time":
        # `time` is a keyword before a simple command: its assignments are the command's.
        for a in rest:
            if "=" not in a.text or not a.text.split("=", 1)[0].replace("_", "a").isalnum():
                break
            if subscript_code(a.text):
                w.doubt(Reason.SHELL_STARTUP)
        rest, st = _leading_assignments(rest, st)
    if name == "xargs":
        return _xargs(w, seen, rest, st, ctx, nd)
    if name == "watch":
        if "-x" in opts or "--exec" in opts:
            return _in_loop(w, rest, st, ctx, nd)
        if not all(a.literal for a in rest):
            w.doubt(Reason.DYNAMIC_SCRIPT)
            return st.tainted()
        return _nested(w, Word(" ".join(a.text for a in rest)), st, ctx, loop=True)
    if not rest and name in ("exec", "time", "command", "builtin", "nocorrect", "noglob"):
        return st
    if name == "builtin":
        builtin = _BUILTINS.get(rest[0].text) if rest and rest[0].literal else None
        if builtin is not None:
            return builtin(w, rest[1:], st, ctx, nd)
        # Any other builtin is read as without the prefix (`builtin read GIT_X`,
        # `builtin fc -s`); functions are skipped, as `command` skips them.
        return run_words(w, rest, st, Ctx(ctx.src, ctx.depth, ctx.in_loop, {}), nd)
    if name == "command":
        # `command` skips functions: only builtins and programs.
        inner = Ctx(ctx.src, ctx.depth, ctx.in_loop, {})
        return run_words(w, rest, st, inner, nd)
    return run_words(w, rest, st, ctx, nd)


def _leading_assignments(rest: list[Word], st: State) -> tuple[list[Word], State]:
    i = 0
    while i < len(rest) and "=" in rest[i].text and not rest[i].text.startswith("="):
        key, _, val = rest[i].text.partition("=")
        if not key.replace("_", "a").isalnum():
            break
        if _TRACKED_ENV.match(key):
            st = st.with_env(key, val if DYN not in val else None)
        i += 1
    return rest[i:], st


def _env(w: Walker, args: list[Word], st: State, ctx: Ctx, nd: int) -> State:
    """`env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]... COMMAND`."""
    i = 0
    while i < len(args):
        a = args[i]
        t = a.text
        if not a.literal and t.startswith("-"):
            w.doubt(Reason.UNKNOWN_WRAPPER_OPTION)
            return st.tainted()
        if t == "--":
            i += 1
            break
        if t in ("-i", "-", "--ignore-environment"):
            st = replace(st, env=())
        elif t in ("-0", "--null", "-v", "--debug"):
            pass
        elif t in ("-u", "--unset", "-C", "--chdir", "-S", "--split-string") or t.startswith(
            ("--unset=", "--chdir=", "--split-string=", "-u", "-C", "-S")
        ):
            key, eq, val = t.partition("=")
            if not eq and len(t) > 2 and not t.startswith("--"):
                key, val = t[:2], t[2:]
            elif not eq:
                if i + 1 >= len(args):
                    return st
                val, i = args[i + 1].text, i + 1
            if key in ("-u", "--unset"):
                st = st.without_env(val)
            elif key in ("-C", "--chdir"):
                st = replace(st, cwd=normpath(st.cwd, val) if DYN not in val else None)
            else:
                split = split_words(val) if DYN not in val else None
                if split is None:
                    w.doubt(Reason.DYNAMIC_SCRIPT)
                    return st.tainted()
                return _env(w, split + args[i + 1 :], st, ctx, nd)
        elif t.startswith("-") and t != "-":
            w.doubt(Reason.UNKNOWN_WRAPPER_OPTION)
            return st.tainted()
        else:
            break
        i += 1
    rest, st = _leading_assignments(args[i:], st)
    # env runs a program, never a function or builtin.
    return run_words(w, rest, st, Ctx(ctx.src, ctx.depth, ctx.in_loop, {}), nd) if rest else st


def _in_loop(w: Walker, words: list[Word], st: State, ctx: Ctx, nd: int) -> State:
    outer = ctx.in_loop
    ctx.in_loop = True
    try:
        return run_words(w, words, st, ctx, nd)
    finally:
        ctx.in_loop = outer


def _xargs(
    w: Walker, seen: list[tuple[str, str]], rest: list[Word], st: State, ctx: Ctx, nd: int
) -> State:
    """xargs adds words read from its input, possibly running the command many times."""
    replace_str = next((v or "{}" for k, v in seen if k in ("-I", "-i", "--replace")), None)
    words = rest or [Word("echo")]
    if replace_str is not None:
        words = [Word(DYN) if replace_str in a.text else a for a in words]
    else:
        words = [*words, Word(DYN)]
    return _in_loop(w, words, st, ctx, nd)


def _find(w: Walker, args: list[Word], st: State, ctx: Ctx, nd: int) -> State:
    """`find ... -exec CMD {} ;` runs CMD once per file."""
    i = 0
    deletes = any(a.text == "-delete" for a in args)
    for a in args:
        if a.text.startswith(("-", "(", "!")):
            break
        if deletes:
            st = w.write_target(a, st)
    while i < len(args):
        if args[i].text in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(args) and args[j].text not in (";", "+"):
                j += 1
            cmd = [Word(DYN) if "{}" in a.text else a for a in args[i + 1 : j]]
            st = _in_loop(w, cmd, st, ctx, nd)
            i = j
        i += 1
    return replace(st, worktree_changed=True) if deletes else st


def _shell(w: Walker, args: list[Word], st: State, ctx: Ctx) -> State:
    """`bash [options] -c SCRIPT [NAME ARGS...]`, `bash FILE`, or a shell reading stdin."""
    has_c = False
    i = 0
    while i < len(args):
        a = args[i]
        t = a.text
        if not a.literal:
            break
        if t in ("--", "-"):
            i += 1
            break
        if t in ("--rcfile", "--init-file"):
            i += 2
            continue
        if t.startswith("--"):
            i += 1
            continue
        if t[:1] in "-+" and len(t) > 1:
            has_c = has_c or "c" in t[1:]
            if t[0] == "-" and "s" in t[1:]:
                break
            i += 2 if ("o" in t[1:] or "O" in t[1:]) else 1
            continue
        break
    if has_c:
        if i >= len(args):
            return st
        return _nested(w, args[i], st, ctx)
    script = args[i] if i < len(args) else None
    if script is not None and not script.literal:
        w.doubt(Reason.DYNAMIC_SCRIPT)  # `bash <(...)`, `bash "$F"`
        return st.tainted()
    if script is not None and not script.text.startswith(("-s", "/dev/", "/proc/")):
        _runs_written(w, script, st)
        return st.tainted()  # a script file: a program like any other
    w.doubt(Reason.SHELL_READS_STDIN)
    return st.tainted()


def _nested(w: Walker, script: Word, st: State, ctx: Ctx, loop: bool = False) -> State:
    if not script.literal:
        w.doubt(Reason.DYNAMIC_SCRIPT)
        return st.tainted()
    if loop:
        marks = len(w.ops)
        after = w.run_script(script.text, st, ctx.depth + 1)
        if any(op.delivers for op in w.ops[marks:]):
            w.doubt(Reason.DELIVERY_IN_LOOP)
        return after
    if ctx.in_loop:
        marks = len(w.ops)
        after = w.run_script(script.text, st, ctx.depth + 1)
        if any(op.delivers for op in w.ops[marks:]):
            w.doubt(Reason.DELIVERY_IN_LOOP)
        return after
    return w.run_script(script.text, st, ctx.depth + 1)


# ---------------------------------------------------------------- builtins


def _cd(w: Walker, args: list[Word], st: State, ctx: Ctx, nd: int) -> State:
    words = [a for a in args if not (a.literal and a.text in ("-L", "-P", "-e", "-@", "--"))]
    if dict(st.env).get("CDPATH", DYN) != DYN or not words:
        return replace(st, cwd=None)  # CDPATH or $HOME decide where it goes
    target = words[0]
    if not target.literal or target.text == "-" or target.text.startswith("+"):
        return replace(st, cwd=None)
    return replace(st, cwd=normpath(st.cwd, target.text))


def _popd(w: Walker, args: list[Word], st: State, ctx: Ctx, nd: int) -> State:
    return replace(st, cwd=None)


def _doubt(reason: Reason):  # type: ignore[no-untyped-def]
    def handler(w: Walker, args: list[Word], st: State, ctx: Ctx, nd: int) -> State:
        w.doubt(reason)
        return st.tainted()

    return handler


def _alias(w: Walker, args: list[Word], st: State, ctx: Ctx, nd: int) -> State:
    if any("=" in a.text or not a.literal for a in args):
        w.doubt(Reason.SHELL_ALIAS)
        return st.tainted()
    return st


def _trap(w: Walker, args: list[Word], st: State, ctx: Ctx, nd: int) -> State:
    if args and not (args[0].literal and args[0].text in ("-l", "-p", "-", "--")):
        w.doubt(Reason.EVAL)
        return st.tainted()
    return st


def _hash(w: Walker, args: list[Word], st: State, ctx: Ctx, nd: int) -> State:
    if any(a.text.startswith("-p") or not a.literal for a in args):
        w.doubt(Reason.COMMAND_LOOKUP_CHANGED)
        return st.tainted()
    return st


def _enable(w: Walker, args: list[Word], st: State, ctx: Ctx, nd: int) -> State:
    if args:
        w.doubt(Reason.COMMAND_LOOKUP_CHANGED)
        return st.tainted()
    return st


def _through_wrapper(name: str):  # type: ignore[no-untyped-def]
    def handler(w: Walker, args: list[Word], st: State, ctx: Ctx, nd: int) -> State:
        return _wrapper(w, name, args, st, ctx, nd)

    return handler


_BUILTINS = {
    "cd": _cd,
    "pushd": _cd,
    "popd": _popd,
    "eval": _doubt(Reason.EVAL),
    "source": _doubt(Reason.SOURCE),
    ".": _doubt(Reason.SOURCE),
    "coproc": _doubt(Reason.UNKNOWN_CONSTRUCT),
    "alias": _alias,
    "trap": _trap,
    "hash": _hash,
    "enable": _enable,
    "exec": _through_wrapper("exec"),
    "command": _through_wrapper("command"),
    "builtin": _through_wrapper("builtin"),
    "time": _through_wrapper("time"),
}


#: The rules the walker judges each simple command by (see `walk.CommandRules`).
RULES = CommandRules(
    run_words=run_words,
    protected_write=protected_write,
    fed_text_safe=FED_TEXT_SAFE,
    looks_like_delivery=looks_like_delivery,
)
