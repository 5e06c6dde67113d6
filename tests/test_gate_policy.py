"""The stricter of two policies (decisions/policy.py): neither side weakens the other."""

from __future__ import annotations

import pytest

from orchestrator.decisions.policy import (
    changed_settings,
    effective_config,
    stricter_disabled,
    stricter_required,
)
from orchestrator.decisions.required import level_for
from orchestrator.errors import UsageError

LANGS = ("python", "javascript", "ruby", "go", "markdown", "yaml", None)
TABLES = (
    {},
    {"python": "syntax"},
    {"python": "none", "default": "none"},
    {"default": "syntax"},
    {"default": "native"},
    {"go": "native", "markdown": "syntax"},
    {"default": "none"},
)
RANK = {"none": 0, "syntax": 1, "native": 2}


def test_a_plugin_stays_off_only_when_both_sides_switch_it_off() -> None:
    assert stricter_disabled(
        {"disable_plugins": ["ruff", "eslint"]}, {"disable_plugins": ["ruff"]}
    ) == ["ruff"]
    assert stricter_disabled({}, {"disable_plugins": ["ruff"]}) == []
    assert stricter_disabled({"disable_plugins": ["ruff"]}, {}) == []


@pytest.mark.parametrize("a", TABLES)
@pytest.mark.parametrize("b", TABLES)
def test_every_language_needs_the_higher_of_both_levels(a: dict, b: dict) -> None:  # type: ignore[type-arg]
    combined = stricter_required({"required": a}, {"required": b})
    for lang in LANGS:
        want = max(level_for(lang, a), level_for(lang, b), key=RANK.__getitem__)
        assert level_for(lang, combined) == want, (a, b, lang)


def test_a_malformed_side_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        stricter_required({"required": {"python": "nativ"}}, {})


def test_effective_config_keeps_the_base_settings_and_no_machine_keys() -> None:
    base = {"jobs": 2, "tools": {"ruff": "/x"}, "required": {"python": "syntax"}}
    surface = {"jobs": 8, "disable_plugins": ["ruff"], "required": {"python": "none"}}
    out = effective_config(base, surface)
    assert out["jobs"] == 2 and "tools" not in out
    assert out["disable_plugins"] == []
    assert out["required"]["python"] == "syntax"
    assert changed_settings(base, surface) == ["disable_plugins", "jobs", "required", "tools"]
