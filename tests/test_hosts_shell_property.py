"""Property: whatever shell spelling a commit or push takes (wrappers, compound commands,
quoting, line continuations, nested `-c` scripts, Codex's argv form), the pre-tool
gate either judges it on the surface it will really have or refuses it as
undeterminable: zero allowed unjudged. The same generator's benign commands and its
deliveries of clean content pass: a gate that refuses everything fails this test.

In-process (no host CLI), against real repositories (tests/shell_gate_support.py): in
the dirty project every surface a delivery can reach holds an AWS-shaped key pair while
the start index is clean, so a gate judging the wrong surface would allow.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import derandomize, examples
from shell_gate_support import BENIGN, DELIVERIES, make_project, repo_state

from orchestrator.decisions.findings import is_blocking
from orchestrator.hosts.events import Kind, RouterEvent
from orchestrator.hosts.router import RouteResult, route

REASSURING = re.compile(r"\b(allow|not_applicable)\b")
Wrap = Callable[[str], str]


def _continued(cmd: str) -> str:
    """A line continuation at the first space (`git \\<newline>commit ...`)."""
    return cmd.replace(" ", " \\\n  ", 1)


def _nested(shell: str, flag: str) -> Wrap:
    return lambda c: f"{shell} {flag} {shlex.quote(c)}"


#: Programs that run the command after them: they apply to a simple command (put in
#: front of a `{ ...; }` group they would try to run a program called `{`).
PREFIX_WRAPS: list[Wrap] = [
    lambda c: f"time {c}",
    lambda c: f"nice -n 5 {c}",
    lambda c: f"nohup {c}",
    lambda c: f"env {c}",
    lambda c: f"command {c}",
    lambda c: f"command -p {c}",
    lambda c: f"sudo -u root {c}",
    lambda c: f"timeout 60 {c}",
    lambda c: f"stdbuf -oL {c}",
]
#: Compound commands, lists, redirections, quoting and nested shells around anything.
OUTER_WRAPS: list[Wrap] = [
    lambda c: c,
    lambda c: f"{{ {c}; }}",
    lambda c: f"( {c} )",
    lambda c: f"if true; then {c}; fi",
    lambda c: f"true && {c}",
    lambda c: f"echo start; {c}",
    lambda c: f"{c} 2>&1 | cat",
    lambda c: f"{c} > /dev/null",
    lambda c: f"{c} # trailing comment",
    _continued,
    _nested("bash", "-c"),
    _nested("bash", "-c --"),
    _nested("bash", "-lc"),
    _nested("sh", "-c"),
]
#: Spellings that hide or repeat a delivery: the gate must refuse them.
HIDING_WRAPS: list[Wrap] = [
    lambda c: f"! {c}",
    lambda c: f"for i in 1 2; do {c}; done",
    lambda c: f"while false; do :; done; {c} &",
    lambda c: f"echo -m | xargs {c}",
    lambda c: f"env -i PATH=/usr/bin {c}",
    lambda c: f"eval {shlex.quote(c)}",
    lambda c: f"make && {c}",
    lambda c: f"bash -c {shlex.quote(c)} extra$RANDOM",
    lambda c: f"$GIT_WRAPPER {c}",
    lambda c: c + " && git push",
]


def _layers(outer: list[Wrap], prefix: list[Wrap] = PREFIX_WRAPS) -> st.SearchStrategy[list[Wrap]]:
    """Program wrappers on the simple command first, then `outer` layers around it."""
    return st.builds(
        lambda p, o: p + o,
        st.lists(st.sampled_from(prefix), max_size=2),
        st.lists(st.sampled_from(outer), max_size=2),
    )


#: Any composition at all (nonsense included): a delivery must still never pass.
wraps = st.lists(st.sampled_from(PREFIX_WRAPS + OUTER_WRAPS + HIDING_WRAPS), max_size=3)
readable = _layers(OUTER_WRAPS)
#: Around a command that delivers nothing, negation, loops, background jobs, xargs and
#: env -i hide nothing (opaque ones - eval, a variable as command name - stay refused).
#: `!` goes on the simple command: the bundled grammar reads `! { ...; }` and
#: `time { ...; }` as a command named `{`, which the analyser refuses (a strict,
#: honest refusal, and a known gap).
benign_wraps = _layers(OUTER_WRAPS + HIDING_WRAPS[1:5], PREFIX_WRAPS + HIDING_WRAPS[:1])
JUDGEABLE = [c for c in DELIVERIES if ";" not in c]


def _spell(core: str, layers: list[Wrap]) -> str:
    for layer in layers:
        core = layer(core)
    return core


def _command(text: str, argv: bool) -> object:
    """The command as a host sends it: text, or Codex's argv list."""
    return ("bash", "-lc", text) if argv else text


def _route(root: Path, command: object) -> RouteResult:
    return route(RouterEvent(Kind.SHELL_COMMAND, root, command=command, shell_cwd=root))


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("shell-property")
    return {
        "dirty": make_project(base / "dirty", dirty=True).resolve(),
        "clean": make_project(base / "clean", dirty=False).resolve(),
    }


#: Each example routes a real gate over a real repository (git runs): tests/property_budget.py.
SETTINGS = settings(
    max_examples=examples(60, 300),
    deadline=None,
    derandomize=derandomize(),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def test_no_delivery_spelling_is_allowed_unjudged(projects: dict[str, Path]) -> None:
    root = projects["dirty"]
    before = repo_state(root)
    seen = {"judged": 0, "refused": 0}

    @SETTINGS
    @given(st.sampled_from(DELIVERIES), wraps, st.booleans())
    def check(core: str, layers: list[Wrap], argv: bool) -> None:
        text = _spell(core, layers)
        res = _route(root, _command(text, argv))
        assert res.block, f"allowed: {text!r}: {res.context}"
        assert not REASSURING.search(res.context + res.message), (text, res.context)
        if res.report is not None:
            seen["judged"] += 1
            rules = {f.rule for f in res.report.findings if is_blocking(f)}
            assert any(r.startswith("secret-") for r in rules), (text, res.context)
        else:
            seen["refused"] += 1
            assert "nothing was judged" in res.context, (text, res.context)

    check()
    assert repo_state(root) == before  # judging never wrote an index, ref or object
    assert seen["judged"] and seen["refused"], seen  # both roads were exercised


def test_benign_commands_and_clean_deliveries_pass(projects: dict[str, Path]) -> None:
    root = projects["clean"]
    seen = {"judged": 0, "ignored": 0}

    @SETTINGS
    @given(
        st.one_of(
            st.tuples(st.just("benign"), st.sampled_from(BENIGN), benign_wraps),
            st.tuples(st.just("delivery"), st.sampled_from(JUDGEABLE), readable),
        ),
        st.booleans(),
    )
    def check(drawn: tuple[str, str, list[Wrap]], argv: bool) -> None:
        kind, core, layers = drawn
        text = _spell(core, layers)
        res = _route(root, _command(text, argv))
        assert not res.block, f"refused: {text!r}: {res.context}"
        if kind == "delivery":
            assert res.report is not None and res.gate == "allow", (text, res.context)
            seen["judged"] += 1
        else:
            assert res.action == "ignored", (text, res.context)
            seen["ignored"] += 1

    check()
    assert seen["judged"] and seen["ignored"], seen
