"""Git's command-line grammar is one table (orchestrator/git/grammar.py), and every
reader of a git command line reads it: the shell analyser, the amend check of the
commit gate and the pre-tool gate's repository options."""

from __future__ import annotations

import pytest

from orchestrator.gates import amend
from orchestrator.git import grammar
from orchestrator.shell.analyser import analyse
from orchestrator.usecases import shell_delivery


@pytest.mark.parametrize(
    ("long", "short"),
    [
        (grammar.COMMIT_LONG, grammar.COMMIT_SHORT),
        (grammar.PUSH_LONG, grammar.PUSH_SHORT),
        (grammar.ADD_LONG, grammar.ADD_SHORT),
    ],
)
def test_every_short_option_names_a_long_one(long: dict[str, str], short: dict[str, str]) -> None:
    assert set(short.values()) <= set(long)
    assert set(long.values()) <= {"none", "value", "optional"}


def test_the_global_option_kinds_do_not_overlap() -> None:
    assert not grammar.OUTPUT_OPTIONS & grammar.INFO_OPTIONS
    assert not (grammar.OUTPUT_OPTIONS | grammar.INFO_OPTIONS) & set(grammar.REPOSITORY_OPTIONS)


def test_the_amend_check_reads_commit_options_from_the_grammar() -> None:
    values = {name for name, kind in grammar.COMMIT_LONG.items() if kind == "value"}
    assert values == amend.LONG_WITH_VALUE
    assert set(grammar.COMMIT_LONG) - values <= amend.LONG_FLAGS
    assert {"m", "F", "C", "c", "t"} == amend.SHORT_WITH_VALUE
    assert {"S", "u"} == amend.SHORT_OPTIONAL


def test_repository_options_and_their_variables_come_from_the_grammar() -> None:
    expected = {o: v for o, v in grammar.REPOSITORY_OPTIONS.items() if v is not None}
    assert expected == shell_delivery._OPTION_ENV


@pytest.mark.parametrize("option", sorted(grammar.GLOBAL_WITH_VALUE - {"-C", "-c", "--config-env"}))
def test_a_global_option_value_is_never_read_as_the_subcommand(option: str) -> None:
    """`git --git-dir commit ...`: `commit` is the option's value for git and for both
    readers (so neither sees a commit there)."""
    argv = ["git", option, "commit", "status", "--amend"]
    assert amend.commit_arguments(argv, lambda _name: None) is None
    assert analyse(" ".join(argv)).verdict != "judge_index"
