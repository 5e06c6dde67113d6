"""Programs that execute text handed to them, for the shell analyser: which arguments
are code, and whether code in the two small languages read here (awk, sed) can run a
program or write a file.

Pure string reading, no verdict: `commands` decides what a finding means. A general
interpreter (`perl -e`, `python -c`, `node -e`, ...) runs a language this module does
not read, so its inline code is reported as code, never judged harmless; awk and sed
programs are read, and only their ways to run a command or write a file count.
"""

from __future__ import annotations

import re

from orchestrator.shell.records import DYN, Word

# ---------------------------------------------------------------- interpreters

#: General interpreters and the options whose value (or the next word) is code.
#: Short letters cluster (`perl -lne`, `python -Bc`); `=` attaches a long value.
INTERPRETERS: dict[str, tuple[str, frozenset[str]]] = {
    "perl": ("eE", frozenset()),
    "python": ("c", frozenset()),
    "python2": ("c", frozenset()),
    "python3": ("c", frozenset()),
    "pypy": ("c", frozenset()),
    "pypy3": ("c", frozenset()),
    "ruby": ("e", frozenset()),
    "node": ("ep", frozenset({"--eval", "--print"})),
    "nodejs": ("ep", frozenset({"--eval", "--print"})),
    "bun": ("ep", frozenset({"--eval", "--print"})),
    "deno": ("", frozenset({"eval"})),
    "php": ("rRBE", frozenset({"--run"})),
    "lua": ("e", frozenset()),
    "luajit": ("e", frozenset()),
    "Rscript": ("e", frozenset({"--expr"})),
    "R": ("e", frozenset()),
    "julia": ("eE", frozenset({"--eval", "--print"})),
    "osascript": ("e", frozenset()),
    "tclsh": ("", frozenset()),
    "wish": ("", frozenset()),
    "expect": ("c", frozenset()),
    "gdb": ("", frozenset({"-ex", "--ex", "-eval-command", "--eval-command"})),
    "vim": ("c", frozenset({"--cmd"})),
    "vi": ("c", frozenset({"--cmd"})),
    "nvim": ("c", frozenset({"--cmd"})),
    "ex": ("c", frozenset({"--cmd"})),
    "emacs": ("", frozenset({"--eval", "-eval"})),
}
#: Short options of some interpreters that take an attached or next value which is
#: not code (`perl -Mmod`, `-i.bak`, `python -W arg`, `-X opt`, `-m module`).
_VALUE_LETTERS = {"perl": "iIMmlxdDC0", "python": "WXm", "ruby": "IrCEFKTUWx"}


def interpreter_code(prog: str, args: list[Word]) -> bool | None:
    """For an interpreter: True when `args` hand it code inline (`-e CODE`, `-c CODE`,
    `--eval=CODE`, `+CMD` for vi), False when it runs a file or only reports (a
    version, help), None when it reads its program from its input (no file given)."""
    letters, longs = INTERPRETERS[prog]
    family = "python" if prog.startswith(("python", "pypy")) else prog
    value_letters = _VALUE_LETTERS.get(family, "")
    for a in args:
        t = a.text
        if t in longs or t.split("=", 1)[0] in longs:
            return True
        if prog in ("vim", "vi", "nvim", "ex") and t.startswith("+") and len(t) > 1:
            return True
        if t.startswith("--"):
            if t in ("--version", "--help"):
                return False
            continue
        if t.startswith("-") and len(t) > 1:
            rest = t[1:]
            while rest:
                c, rest = rest[0], rest[1:]
                if c in letters:
                    return True
                if family == "perl" and c in "l0":
                    rest = rest.lstrip("0123456789abcdefABCDEFx")  # `-l`, `-0777`: digits
                    continue
                if c in value_letters:
                    break
            if t in ("-V", "-v", "-h", "--version"):
                return False
            continue
        return False  # a script file (or, for `deno`, a subcommand other than eval)
    return None


# ---------------------------------------------------------------- awk

AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
_AWK_VALUE_OPTIONS = frozenset({"-F", "-v", "-f", "-E", "-i", "-l", "-W"})
_AWK_LONG_VALUE = ("--field-separator", "--assign", "--file", "--exec", "--include", "--load")
_AWK_REGEX_AFTER = set("(,{;~!&|=<>?:+-*%^\n") | {""}


def awk_program(args: list[Word]) -> tuple[Word | None, bool]:
    """The inline program text of an awk command, and whether it also runs a program
    file (`-f FILE`, `--exec`) or loads an extension (`-l`, `--load`, `-i`)."""
    from_file = False
    i = 0
    while i < len(args):
        t = args[i].text
        if t == "--":
            i += 1
            break
        if t.startswith(_AWK_LONG_VALUE):
            from_file = from_file or not t.startswith(("--field-separator", "--assign"))
            i += 1 if "=" in t else 2
            continue
        if t[:2] in _AWK_VALUE_OPTIONS:
            from_file = from_file or t[:2] in ("-f", "-E", "-i", "-l")
            i += 1 if len(t) > 2 else 2
            continue
        if t.startswith("-") and t != "-":
            i += 1
            continue
        break
    if from_file:
        return None, True
    return (args[i] if i < len(args) else None), False


def awk_runs(program: str) -> bool:
    """Whether an awk program can run a command or write a file: `system(...)`, a pipe
    to or from a command (`print | "sh"`, `"cmd" | getline`), output redirection
    (`print > FILE`), or gawk's `@load` / `@include`. Strings and regular expressions
    are skipped the way awk's lexer tells them from division."""
    if DYN in program:
        return True
    code: list[str] = []
    prev = ""  # last significant character outside strings and regexes
    i, n = 0, len(program)
    while i < n:
        c = program[i]
        if c == '"':
            j = i + 1
            while j < n and program[j] != '"':
                j += 2 if program[j] == "\\" else 1
            code.append('""')
            i, prev = j + 1, '"'
            continue
        if c == "/" and prev in _AWK_REGEX_AFTER:
            j = i + 1
            while j < n and program[j] not in "/\n":
                j += 2 if program[j] == "\\" else 1
            code.append("//")
            i, prev = j + 1, "/"
            continue
        if c == "#":
            while i < n and program[i] != "\n":
                i += 1
            continue
        code.append(c)
        if not c.isspace():
            prev = c
        elif c == "\n":
            prev = "\n"
        i += 1
    text = "".join(code).replace("||", " ")
    if re.search(r"\bsystem\s*\(|@load|@include|\|", text):
        return True
    # `>` inside a print statement (outside parentheses) redirects its output to a file.
    for m in re.finditer(r"\bprintf?\b([^;{}\n]*)", text):
        depth = 0
        for ch in m.group(1):
            depth += ch == "("
            depth -= ch == ")"
            if ch == ">" and depth <= 0:
                return True
    return False


# ---------------------------------------------------------------- sed

SEDS = frozenset({"sed", "gsed"})
_SED_SIMPLE = set("=dDgGhHnNpPxzFlLqQ")


def sed_scripts(args: list[Word]) -> tuple[list[Word], bool, bool]:
    """The sed scripts of a command (`-e`, `--expression`, or the first other word),
    whether a script comes from a file (`-f`), and whether `--sandbox` is on (GNU
    sed then refuses `e`, `w` and `r`)."""
    scripts: list[Word] = []
    from_file = sandbox = False
    first: Word | None = None
    i = 0
    while i < len(args):
        a, t = args[i], args[i].text
        if t == "--":
            if first is None and i + 1 < len(args):
                first = args[i + 1]
            break
        if t == "--sandbox":
            sandbox = True
        elif t in ("-e", "--expression", "-f", "--file", "-l", "--line-length"):
            if i + 1 < len(args) and t in ("-e", "--expression"):
                scripts.append(args[i + 1])
            from_file = from_file or t in ("-f", "--file")
            i += 2
            continue
        elif t.startswith("--expression="):
            scripts.append(Word(t.split("=", 1)[1], a.glob))
        elif t.startswith("--file="):
            from_file = True
        elif t.startswith("-") and not t.startswith("--") and len(t) > 1:
            for j, c in enumerate(t[1:], 1):
                if c == "i":
                    break  # the rest is a backup suffix
                if c in "efl":
                    value = t[j + 1 :]
                    if not value and i + 1 < len(args):
                        value, i = args[i + 1].text, i + 1
                    if c == "e":
                        scripts.append(Word(value, a.glob))
                    from_file = from_file or c == "f"
                    break
        elif not t.startswith("-") and first is None:
            first = a
        i += 1
    if not scripts and not from_file and first is not None:
        scripts.append(first)
    return scripts, from_file, sandbox


def sed_runs(script: str) -> bool:
    """Whether a sed script can run a command or write a file: GNU sed's `e` command,
    the `e` and `w` flags of `s`, `w` / `W`; a script this reading does not follow
    counts as able to."""
    if DYN in script:
        return True
    s, i, n = script, 0, len(script)

    def skip_regex(j: int, delim: str) -> int:
        while j < n and s[j] != delim:
            j += 2 if s[j] == "\\" else 1
        return j + 1

    def address(j: int) -> int:
        if j < n and s[j] == "/":
            j = skip_regex(j + 1, "/")
        elif j < n and s[j] == "\\" and j + 1 < n:
            j = skip_regex(j + 2, s[j + 1])
        else:
            while j < n and (s[j].isdigit() or s[j] in "$~+"):
                j += 1
        while j < n and s[j] in "IM":
            j += 1
        return j

    while i < n:
        while i < n and (s[i].isspace() or s[i] in ";}"):
            i += 1
        if i >= n:
            break
        i = address(i)
        if i < n and s[i] == ",":
            i = address(i + 1)
        while i < n and (s[i].isspace() or s[i] == "!"):
            i += 1
        if i >= n:
            break
        c = s[i]
        i += 1
        if c in "{":
            continue
        if c == "#" or c == ":" or c in "aicrRbtTvq" or c in "QlL":
            while i < n and s[i] not in "\n" + (";" if c in "bTtvqQlL:" else ""):
                i += 2 if s[i] == "\\" else 1
            continue
        if c in "ewW":
            return True
        if c == "s" or c == "y":
            if i >= n or s[i] in "\n\\":
                return True
            delim = s[i]
            i = skip_regex(i + 1, delim)
            i = skip_regex(i, delim)
            if c == "s":
                start = i
                while i < n and s[i] not in ";\n}":
                    i += 1
                flags = s[start:i]
                if "e" in flags or "w" in flags or "W" in flags:
                    return True
            continue
        if c in _SED_SIMPLE:
            continue
        return True
    return False
