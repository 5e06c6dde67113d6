"""The shell walker judges simple commands by the rules it is given (no import of the
command rules), and its records stay at the bottom of the package."""

from __future__ import annotations

from dataclasses import replace

from orchestrator.shell.commands import RULES
from orchestrator.shell.records import Ctx, Reason, State, Word
from orchestrator.shell.walk import CommandRules, Walker


def _recording() -> tuple[CommandRules, list[list[str]]]:
    seen: list[list[str]] = []

    def run_words(w: Walker, words: list[Word], st: State, ctx: Ctx, nd: int) -> State:
        seen.append([word.text for word in words])
        return st

    rules = CommandRules(
        run_words=run_words,
        protected_write=lambda _path, _cwd: None,
        fed_text_safe=frozenset(),
        looks_like_delivery=lambda _text: False,
    )
    return rules, seen


def test_the_walker_asks_its_rules_for_every_command_substitutions_first() -> None:
    rules, seen = _recording()
    Walker({}, rules).run_script("echo $(git status) && ls")
    assert seen == [["git", "status"], ["echo", "\x00"], ["ls"]]


def test_an_argv_list_goes_to_the_rules_as_it_is() -> None:
    rules, seen = _recording()
    Walker({}, rules).run_argv([Word("git"), Word("commit")])
    assert seen == [["git", "commit"]]


def test_a_write_is_judged_by_the_given_rules() -> None:
    rules, _ = _recording()
    walker = Walker({}, replace(rules, protected_write=lambda _p, _c: Reason.GIT_DIR_WRITE))
    walker.run_script("echo x > notes.txt")
    assert walker.forbidden == [Reason.GIT_DIR_WRITE]


def test_the_built_in_rules_are_the_command_rules() -> None:
    walker = Walker({}, RULES)
    walker.run_script("git commit -m x")
    assert [op.kind for op in walker.ops] == ["commit"]
