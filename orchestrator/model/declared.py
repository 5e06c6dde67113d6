"""What a checker declares, read and validated once when its plugin loads.

A plugin object is duck-typed (plugins/README.md): `name`, `tier`, `claims`, `plan`
and `run` are required; `languages`, `config_names`, `column_unit`, `tool_names`,
`essential`, `required_with_config`, `reuse_identity`, `reuse_dependencies` and
`reviewed_policy_file` are declarations. Before this record every consumer probed the object with `getattr` and
validated what it found its own way. Now `declare(checker)` reads each declaration once, refuses a malformed one
(the plugin then fails to load, with the reason), and fills a missing one with the
default that keeps the old behaviour, naming it in `defaulted` so the host can warn
once (a deprecation path: a future release requires them).

`LoadedChecker` delegates `claims`, `plan`, `run` and `probe` to the plugin's object,
so the engine runs it like the checker itself; everything else reads the record.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from orchestrator.model.checker import (
    Batch,
    CheckerPlan,
    FileOutcome,
    FileTarget,
    Probe,
    RunContext,
    probe_of,
)
from orchestrator.vocab import Tier

#: The unit a checker's finding columns count in: Unicode code points (a Python `str`
#: index: Ruff, RuboCop, yamllint), UTF-16 code units (a JavaScript string index:
#: ESLint) or UTF-8 bytes (tree-sitter points).
ColumnUnit = Literal["codepoint", "utf16", "utf8"]
COLUMN_UNITS: tuple[ColumnUnit, ...] = ("codepoint", "utf16", "utf8")

#: Declarations a plugin should make; one it leaves out gets the default and a warning.
EXPECTED = ("languages", "config_names", "column_unit")


class BadDeclaration(TypeError):
    """A checker declares something malformed: its plugin fails to load, saying what."""


@dataclass(frozen=True, eq=False)
class LoadedChecker:
    """A checker with its declarations read once (see the module docstring)."""

    impl: Any
    name: str
    tier: Tier
    languages: frozenset[str]
    #: The files whose presence means the project configures the tool, and that govern
    #: it (a strict gate copies them into its private tree). Empty: it reads none.
    config_names: tuple[str, ...]
    column_unit: ColumnUnit
    essential: bool
    #: The checker runs only under the project's own configuration (one of its
    #: `config_names` at the project root); without one it is not the project's tool,
    #: so its languages ask no native evidence of a gate (it settles its files
    #: `configuration_required` and the fallback judges them).
    config_required: bool
    reuse_identity: Callable[..., Any] | None
    reviewed_policy_file: Callable[..., Any] | None
    #: The declarations in EXPECTED the plugin did not make (their defaults apply).
    defaulted: tuple[str, ...] = ()
    #: The checker runs without the project's configuration, but its languages ask
    #: native evidence of a gate by default only where one of its `config_names` is at
    #: the project root (a recipe's tool: shipping shellcheck must not make every shell
    #: script of a project that does not use it need shellcheck).
    required_with_config: bool = False
    #: `reuse_dependencies(target, source, batch, ctx)`: the other paths a file's result
    #: depends on (core/dependencies.py); None when it depends on no other file.
    reuse_dependencies: Callable[..., Any] | None = None

    @functools.cached_property
    def tool_names(self) -> tuple[str, ...]:
        """`[tools]` keys the checker looks a tool up by, beside its own name. Read when
        first asked (only a project with a `[tools]` table asks): the fallback checker's
        answer imports its exact parser table, which a Python-only run never needs."""
        try:
            return _names(getattr(self.impl, "tool_names", ()), "tool_names", self.name)
        except BadDeclaration:
            return ()

    @property
    def native(self) -> bool:
        """True for a native-tier checker: its `checked` scopes are native evidence."""
        return self.tier == Tier.NATIVE

    def claims(self, target: FileTarget) -> bool:
        """The plugin's own `claims`."""
        return bool(self.impl.claims(target))

    def judges_generated(self, target: FileTarget) -> bool:
        """The plugin's optional `judges_generated(target)` (a fallback checker that
        judges a generated file without its grammar: core/plan.split_generated); False
        without one."""
        fn = getattr(self.impl, "judges_generated", None)
        return bool(fn(target)) if callable(fn) else False

    def plan(self, targets: Sequence[FileTarget], ctx: RunContext) -> CheckerPlan:
        """The plugin's own `plan`."""
        return self.impl.plan(targets, ctx)  # type: ignore[no-any-return]

    def run(self, batch: Batch, ctx: RunContext) -> list[FileOutcome]:
        """The plugin's own `run`."""
        return self.impl.run(batch, ctx)  # type: ignore[no-any-return]

    def probe(self, root: Path) -> Probe:
        """The plugin's `probe(root)`, contained: a missing or faulty one is `Probe()`."""
        return probe_of(self.impl, root)


def _names(value: object, what: str, name: str) -> tuple[str, ...]:
    if not isinstance(value, tuple | list | frozenset | set):
        raise BadDeclaration(f"checker {name}: {what} must be a tuple of strings")
    if not all(isinstance(n, str) and n for n in value):
        raise BadDeclaration(f"checker {name}: {what} must hold non-empty strings")
    return tuple(sorted(value)) if isinstance(value, frozenset | set) else tuple(value)


def _hook(obj: object, attr: str, name: str) -> Callable[..., Any] | None:
    fn = getattr(obj, attr, None)
    if fn is not None and not callable(fn):
        raise BadDeclaration(f"checker {name}: {attr} must be callable")
    return fn


def declare(checker: object) -> LoadedChecker:
    """`checker`'s declarations as one validated record, or BadDeclaration saying what
    is malformed. Already a LoadedChecker: returned as it is."""
    if isinstance(checker, LoadedChecker):
        return checker
    name = getattr(checker, "name", None)
    if not isinstance(name, str) or not name:
        raise BadDeclaration(f"not a checker: {type(checker).__name__} has no name")
    try:
        tier = Tier(getattr(checker, "tier", None))
    except ValueError:
        raise BadDeclaration(f"checker {name}: tier must be one of the Tier values") from None
    for method in ("claims", "plan", "run"):
        if not callable(getattr(checker, method, None)):
            raise BadDeclaration(f"not a checker: {name} has no {method}()")
    missing = tuple(a for a in EXPECTED if not hasattr(checker, a))
    unit = getattr(checker, "column_unit", "codepoint")
    if unit not in COLUMN_UNITS:
        raise BadDeclaration(
            f"checker {name}: column_unit must be one of {', '.join(COLUMN_UNITS)}"
        )
    essential = getattr(checker, "essential", False)
    config_required = getattr(checker, "config_required", False)
    with_config = getattr(checker, "required_with_config", False)
    if not all(isinstance(v, bool) for v in (essential, config_required, with_config)):
        raise BadDeclaration(
            f"checker {name}: essential, config_required and required_with_config must be booleans"
        )
    return LoadedChecker(
        impl=checker,
        name=name,
        tier=tier,
        languages=frozenset(_names(getattr(checker, "languages", ()), "languages", name)),
        config_names=_names(getattr(checker, "config_names", ()), "config_names", name),
        column_unit=unit,
        essential=essential,
        config_required=config_required,
        reuse_identity=_hook(checker, "reuse_identity", name),
        reviewed_policy_file=_hook(checker, "reviewed_policy_file", name),
        defaulted=missing,
        reuse_dependencies=_hook(checker, "reuse_dependencies", name),
        required_with_config=with_config,
    )


def native_languages(
    checkers: Sequence[LoadedChecker], root_files: Collection[str] | None = None
) -> dict[str, str]:
    """Language -> name of the first native checker declaring it (input order).

    With `root_files` (the file names at the project root of what is judged), a
    `config_required` (or `required_with_config`) checker counts only where one of its
    `config_names` is among them:
    installing a plugin for a tool a project does not use must not make the project's
    files need that tool. Without it every native checker counts."""
    out: dict[str, str] = {}
    for c in checkers:
        unconfigured = root_files is not None and not any(n in root_files for n in c.config_names)
        if (c.config_required or c.required_with_config) and unconfigured:
            continue
        if c.native:
            for lang in sorted(c.languages):
                out.setdefault(lang, c.name)
    return out
