"""Whether a `git commit` drops what follows its scissors line, read from its command
line and settings as git decides it (gates/amend.drops_below_scissors): `--verbose`
always cuts; the `scissors` cleanup cuts only when git runs the editor. Generated
spellings both ways; the commit-msg hook's real runs are in test_gate_commit_msg.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from orchestrator.gates.amend import drops_below_scissors

SCISSORS_NO_EDITOR = [
    [*given, *cleanup]
    for given in (
        ["-m", "x"],
        ["-mx"],
        ["-qm", "x"],
        ["--message=x"],
        ["--mess", "x"],
        ["-F", "f"],
        ["--file=f"],
        ["-C", "HEAD"],
        ["--reuse-message=HEAD"],
        ["--no-edit"],
        ["-e", "--no-edit"],
        ["-e", "--no-edit", "-m", "x"],
    )
    for cleanup in (["--cleanup=scissors"], ["--cleanup", "scissors"], ["--cleanu=scissors"])
]

#: Where git's choice of the editor is not certain here: every line is judged.
SCISSORS_UNCERTAIN = [
    [*given, "--cleanup=scissors"]
    for given in (["-c", "HEAD"], ["--fixup=HEAD"], ["--squash=HEAD"])
]

SCISSORS_EDITOR = [
    ["--cleanup=scissors"],
    ["--cleanup", "scissors", "-q"],
    ["--cleanup=scissors", "-e", "-m", "x"],
    ["-em", "x", "--cleanup=scissors"],
    ["-m", "x", "--edit", "--cleanup=scissors"],
    ["-F", "f", "--no-edit", "--edit", "--cleanup=scissors"],
    ["-m", "-v", "--cleanup=scissors", "--edit"],
]


@pytest.mark.parametrize("args", SCISSORS_NO_EDITOR, ids=" ".join)
def test_the_scissors_cleanup_without_an_editor_keeps_every_line(args: Sequence[str]) -> None:
    assert not drops_below_scissors(args, lambda _key: None)


@pytest.mark.parametrize("args", SCISSORS_UNCERTAIN, ids=" ".join)
def test_where_the_editor_is_not_certain_every_line_is_judged(args: Sequence[str]) -> None:
    assert not drops_below_scissors(args, lambda _key: None)


@pytest.mark.parametrize("given", [["-m", "x"], ["-F", "f"], ["-C", "HEAD"], ["--no-edit"]])
def test_the_configured_scissors_cleanup_without_an_editor_keeps_every_line(
    given: list[str],
) -> None:
    config = {"commit.cleanup": "scissors"}.get
    assert not drops_below_scissors(given, config)


@pytest.mark.parametrize("args", SCISSORS_EDITOR, ids=" ".join)
def test_the_scissors_cleanup_with_the_editor_cuts(args: Sequence[str]) -> None:
    assert drops_below_scissors(args, lambda _key: None)


@pytest.mark.parametrize("args", [[], ["-q"], ["-e", "-m", "x"]], ids=" ".join)
def test_the_configured_scissors_cleanup_with_the_editor_cuts(args: list[str]) -> None:
    assert drops_below_scissors(args, {"commit.cleanup": "scissors"}.get)


@pytest.mark.parametrize(
    "args", [["-v"], ["-v", "-m", "x"], ["--verbose", "-F", "f"], ["-qvm", "x"]], ids=" ".join
)
def test_verbose_always_cuts(args: list[str]) -> None:
    assert drops_below_scissors(args, lambda _key: None)
    assert drops_below_scissors(["-m", "x"], {"commit.verbose": "true"}.get)


def test_a_message_option_value_is_not_an_option() -> None:
    """`-m -v` is the message "-v", not `--verbose`: with it git runs no editor."""
    assert not drops_below_scissors(["-m", "-v", "--cleanup=scissors"], lambda _key: None)


def test_another_comment_character_never_cuts() -> None:
    config = {"core.commentChar": ";", "commit.cleanup": "scissors"}.get
    assert not drops_below_scissors(["-v"], config)
