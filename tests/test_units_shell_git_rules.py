"""Git's own argument rules in the shell analyser (`orchestrator.shell.git_rules`):
abbreviated long options, global options, aliases and staging, read through the
analyser's one entry (`analyse`) that hands git's words to `git_rules.run_git`."""

from __future__ import annotations

from orchestrator.shell.analyser import analyse


def _read(command: str) -> tuple[str, str | None, list[str]]:
    a = analyse(command, known_aliases={"ci": "commit"})
    return str(a.verdict), (str(a.reason) if a.reason else None), [op.kind for op in a.ops]


def test_an_abbreviated_long_option_is_resolved_like_git_does() -> None:
    assert _read("git commit --no-verify -m x") == ("forbidden", "no_verify", ["commit"])
    assert _read("git commit --no-ver -m x") == ("forbidden", "no_verify", ["commit"])


def test_unknown_global_options_and_subcommands_are_undeterminable() -> None:
    assert _read("git --frobnicate commit") == ("undeterminable", "unknown_git_option", [])
    assert _read("git comm -m x") == ("undeterminable", "git_alias_or_extension", [])


def test_global_options_aliases_and_staging_keep_the_delivery() -> None:
    assert _read("git -C sub commit -m x") == ("judge_index", None, ["commit"])
    assert _read("git ci -m x") == ("judge_index", None, ["commit"])
    assert _read("git add a.py && git commit -m x") == ("judge_index", None, ["add", "commit"])
    assert _read("git push origin main") == ("judge_index", None, ["push"])
    assert _read("git status") == ("no_delivery", None, ["status"])
