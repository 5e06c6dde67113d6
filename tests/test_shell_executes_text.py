"""The pre-tool gate against programs and builtins that execute text handed to them
(issue 24, class 5), written as an adversary: each way the command itself carries code
that something runs, spelled in several programs and wrappers, is refused; the
ordinary commands beside each (`awk '{print $1}'`, `sed -i s/a/b/`, `pytest`, `make`,
`npm test`, `python3 script.py`, `chmod +x run.sh && ./run.sh`) still pass.

The contract (docs/gates.md, threat model): code the command hands a program is read
or refused; code in files that existed before the command is out of the pre-tool
gate's sight, and programs not known to execute their arguments stay as they were.

Reasons are compared by their fixed words so that the same file runs against code
that predates them."""

from __future__ import annotations

import shlex

import pytest

from orchestrator.shell.analyser import analyse

REFUSED = ("undeterminable", "forbidden")
#: Code that commits behind the hooks, and the same spelled so no word reads as git.
PAYLOADS = ("git commit --no-verify -m x", "g\\x69t c\\x6fmmit --n\\x6f-verify -m x")


def _wraps(command: str) -> list[str]:
    q = shlex.quote(command)
    return [command, f"bash -c {q}", f"( {command} )", f"time {command}", f"env {command}"]


def _refused(command: str, programs: bool = True) -> None:
    """Refused as written and wrapped (`programs`: also behind `time` and `env`, which
    run a program rather than a shell's builtins and lists)."""
    for spelled in _wraps(command)[: None if programs else 3]:
        r = analyse(spelled)
        assert r.verdict in REFUSED, (spelled, r.verdict)


# ---------------------------------------------------------------- interpreters


_INLINE = [
    "perl -e {c}",
    "perl -E {c}",
    "perl -lne {c} file",
    "perl -pi -e {c} file",
    "perl -Mstrict -we {c}",
    "python -c {c}",
    "python3 -c {c}",
    "python3.12 -Bc {c}",
    "python3 -I -c {c}",
    "pypy3 -c {c}",
    "ruby -e {c}",
    "ruby -we {c}",
    "node -e {c}",
    "node --eval={c}",
    "node -p {c}",
    "nodejs --print {c}",
    "bun -e {c}",
    "deno eval {c}",
    "php -r {c}",
    "lua -e {c}",
    "Rscript -e {c}",
    "julia -e {c}",
    "osascript -e {c}",
    "expect -c {c}",
    "gdb -batch -ex {c}",
    "vim -c {c} file",
    "vim +{c} file",
    "emacs --batch --eval {c}",
]


@pytest.mark.parametrize("spelling", _INLINE)
def test_inline_code_for_an_interpreter_is_refused(spelling: str) -> None:
    for payload in PAYLOADS:
        code = shlex.quote(f"system(pack('H*', '{payload.encode().hex()}'))")
        _refused(spelling.format(c=code))


@pytest.mark.parametrize(
    "command",
    [
        "echo 'system(\"x\")' | perl",
        'printf %s "$CODE" | python3',
        "python3 - <<'EOF'\nimport os\nEOF",
        "cat x.rb | ruby",
        "node < script.js",
    ],
)
def test_an_interpreter_reading_its_program_from_input_is_refused(command: str) -> None:
    _refused(command)


# ---------------------------------------------------------------- awk and sed


@pytest.mark.parametrize("awk", ["awk", "gawk", "mawk", "nawk", "/usr/bin/awk"])
@pytest.mark.parametrize(
    "program",
    [
        'BEGIN { system("./x") }',
        'BEGIN{system ("./x")}',
        '{ print | "sh" }',
        '{ print $0 |"sh" }',
        'BEGIN { "./x" | getline v }',
        'BEGIN { cmd = "sh"; print "id" | cmd }',
        'BEGIN { print "x" |& "sh" }',
        '{ print > ".git/hooks/pre-commit" }',
        '{ printf "%s", $0 >> "run.sh" }',
        '@load "filefuncs"',
        'BEGIN { s = sprintf("%c", 115); system(s "h") }',
        '/x/ { a = 1 } END { system("./x") }',
    ],
)
def test_awk_programs_that_run_commands_or_write_files_are_refused(awk: str, program: str) -> None:
    _refused(f"{awk} {shlex.quote(program)} file")


@pytest.mark.parametrize(
    "command",
    [
        "awk -f prog.awk file",
        "gawk -l ordchr 'BEGIN{}'",
        "gawk --load=./ext.so 'BEGIN{}'",
    ],
)
def test_awk_programs_from_files_written_now_or_loaded_are_not_read_as_harmless(
    command: str,
) -> None:
    r = analyse("echo 'BEGIN{system(\"x\")}' > prog.awk; " + command)
    assert r.verdict in REFUSED, command


@pytest.mark.parametrize("sed", ["sed", "gsed", "/bin/sed"])
@pytest.mark.parametrize(
    "script",
    [
        "1e ./x",
        "e ./x",
        "$e ./x",
        "/foo/e ./x",
        "s/.*/.\\/x/e",
        "s|a|b|ge",
        "s/a/b/w .git/hooks/pre-commit",
        "w run.sh",
        "1!W out",
        "/a/,/b/{e ./x\n}",
        "2{s/a/b/;e ./x\n}",
    ],
)
def test_sed_scripts_that_run_commands_or_write_files_are_refused(sed: str, script: str) -> None:
    for spelled in (
        f"{sed} {shlex.quote(script)} file",
        f"{sed} -n -e {shlex.quote(script)} file",
        f"{sed} --expression={shlex.quote(script)} file",
        f"{sed} -i.bak -e 's/x/y/' -e {shlex.quote(script)} file",
    ):
        _refused(spelled)


# ---------------------------------------------------------------- the shell's own


@pytest.mark.parametrize(
    "command",
    [
        "let 'x[$(./x)]'",
        'let "x[`./x`]"',
        "declare 'a[$(./x)]=1'",
        "typeset -a 'a[$(./x)]'",
        "readonly 'a[$(./x)]'",
        "local 'a[$(./x)]' 2>/dev/null",
        "export 'a[$(./x)]'",
        "test -v 'a[$(./x)]'",
        "[ -v 'a[$(./x)]' ]",
        "[[ -v 'a[$(./x)]' ]]",
        "printf -v 'a[$(./x)]' %s 1",
        "read 'a[$(./x)]' <<< 1",
        "x='a[$(./x)]'; echo $((x))",
        "x='a[$(./x)]'; (( x ))",
        "x='a[$(./x)]'; [[ x -eq 1 ]]",
        'v=$(cat name); let "$v"',
        'v=$(cat name); test -v "$v"',
        'v=$(cat name); printf -v "$v" %s 1',
        'v=$(cat name); read "$v" <<< 1',
        "PS4='$(./x)' bash -xc true",
        "PS4='`./x`'; set -x; true",
        "export PS4='${x[$(./x)]}'; set -o xtrace; ls",
        "BASH_ENV=./x bash -c true",
        "export BASH_ENV=./x; make",
        "env BASH_ENV=./x bash -c true",
        "ENV=./x sh -c true",
        "PROMPT_COMMAND=./x bash -ic true",
    ],
)
def test_code_the_shell_runs_by_itself_is_refused(command: str) -> None:
    _refused(command, programs=False)


# ---------------------------------------------------------------- written, then run


_WRITES = (
    "echo {p} > run.sh",
    "printf '%s\\n' {p} >> run.sh",
    "cat > run.sh <<'EOF'\n{p}\nEOF",
    "tee run.sh <<< {p} >/dev/null",
    "cp /tmp/payload run.sh",
    "git show HEAD:tool.sh > run.sh",
    'echo {p} > "$F"',
)
_RUNS = (
    "bash run.sh",
    "sh ./run.sh",
    "./run.sh",
    "chmod +x run.sh && ./run.sh",
    "python3 run.sh",
    "perl run.sh",
    "awk -f run.sh",
    "sed -f run.sh file",
    "cd . && bash run.sh",
)


@pytest.mark.parametrize("write", _WRITES)
def test_a_script_written_then_run_in_the_same_command_is_refused(write: str) -> None:
    for run in _RUNS:
        for join in ("{w} && {r}", "{w}; {r}", "{w}\n{r}"):
            command = join.format(w=write.format(p=shlex.quote(PAYLOADS[1])), r=run)
            r = analyse(command)
            assert r.verdict in REFUSED, (command, r.verdict)


@pytest.mark.parametrize(
    "command",
    [
        "echo 'all:; ./x' > Makefile && make",
        'printf \'{"scripts":{"test":"./x"}}\' > package.json && npm test',
        "echo 'import os' > conftest.py && pytest -q",
        "cat > justfile <<'EOF'\nx:\n\t./x\nEOF\njust x",
    ],
)
def test_a_build_file_written_then_used_is_refused(command: str) -> None:
    r = analyse(command)
    assert r.verdict in REFUSED, command


# ---------------------------------------------------------------- what still passes


@pytest.mark.parametrize(
    "command",
    [
        "pytest -q",
        "python3 -m pytest tests/test_x.py",
        "python3 script.py --flag",
        "make",
        "make test",
        "npm test",
        "npm run build",
        "cargo test",
        "go test ./...",
        "ruby script.rb",
        "node build.js",
        "perl script.pl",
        "python3 --version",
        "awk '{print $1}' file",
        "awk -F: '{print $1}' /etc/passwd",
        "awk -F'|' '{print $2}' file",
        "awk '/foo|bar/ {n++} END {print n}' file",
        "awk '$3 > 5 {print $1}' file",
        "awk 'NR > 1 { s += $2 } END { print s / NR }' file",
        "awk '{ print ($1 > 2) }' file",
        "sed 's/a/b/' file",
        "sed -n '1,20p' file",
        "sed -i 's/foo/bar/g' file",
        "sed -i.bak -e 's|a|b|' -e '/^#/d' file",
        "sed -E 's/(x+)/[\\1]/g' file",
        "sed '/start/,/end/d' file",
        "sed --sandbox 'e ./x' file",
        "sed 'y/abc/xyz/' file",
        "sed '$a\\\nlast line' file",
        "chmod +x run.sh && ./run.sh",
        "echo x > notes.txt && pytest -q",
        "echo x > /tmp/out && make",
        "let i++",
        "let 'n = n + 1'",
        "declare -a arr=(1 2 3)",
        "x=1; echo $((x + 1))",
        "read -r line < file",
        "printf -v out '%s' x",
        "test -v HOME",
        "[[ -n $x ]]",
        "PS4='+ ' bash -xc true",
        "export BASH_ENV=",
    ],
)
def test_ordinary_commands_beside_each_form_pass(command: str) -> None:
    r = analyse(command)
    assert (r.verdict, r.reason) == ("no_delivery", None), command
