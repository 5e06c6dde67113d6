"""Required coverage per language for delivery gates.

Configured in ``[tool.orchestrate.required]`` (pyproject.toml) or ``[required]``
(orchestrate.toml), e.g. ``python = "native"``, ``go = "syntax"``, ``markdown = "none"``,
plus an optional ``default`` for every language not named. Without configuration:
``native`` where a built-in native checker exists for the language, ``syntax`` for
any other language with a qualified bundled grammar, nothing for the rest (languages
whose grammar is unqualified, and files no language was recognised for): those can
never show complete syntax evidence, so requiring it by default would block every
README. The gate still lists them as unverified.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from orchestrator.errors import UsageError
from orchestrator.safetext import printable

NATIVE = "native"
SYNTAX = "syntax"
NONE = "none"
LEVELS = (NATIVE, SYNTAX, NONE)
#: The default policy: languages whose files need native evidence before a gate allows
#: them. Policy, not checker knowledge: which checker gives that evidence comes from the
#: loaded checkers' declarations (`model/declared.py`), never from a table of names.
NATIVE_LANGUAGES = frozenset({"python", "javascript", "typescript", "tsx", "ruby"})


def required_coverage(config: Mapping[str, Any]) -> dict[str, str]:
    """The validated ``required`` table of the project config (language -> level).

    An unknown level is a usage error: a typo must not silently weaken a gate. A config
    from a file was validated when it was read (core/config.py, naming the file); this
    check keeps a config handed in as a mapping to the same rule.
    """
    table = config.get("required", {})
    if not isinstance(table, Mapping):
        raise UsageError("required: want a table of language = level")
    out: dict[str, str] = {}
    for lang, level in table.items():
        if level not in LEVELS:
            raise UsageError(
                f"required.{printable(lang)}: want one of {', '.join(LEVELS)},"
                f" got {printable(repr(level))[:60]}"
            )
        out[str(lang)] = str(level)
    return out


def level_for(
    language: str | None, required: Mapping[str, str], native: Collection[str] = ()
) -> str:
    """The coverage level a file of `language` needs before a gate may allow it.

    Unless the project's table says otherwise: native for the default policy's languages
    and for every language a loaded native checker declares (`native`), syntax where a
    qualified grammar exists, none for the rest. The default policy does not shrink when
    a checker is disabled: switching Ruff off must not lower what a Python file needs.
    """
    if language and language in required:
        return required[language]
    if "default" in required and language:
        return required["default"]
    if language in NATIVE_LANGUAGES or (language and language in native):
        return NATIVE
    if not language:
        return NONE
    from orchestrator.model.languages import grammar_info

    info = grammar_info(language)
    return SYNTAX if info is not None and info.qualified else NONE


#: Strictness order of the levels.
_RANK = {NONE: 0, SYNTAX: 1, NATIVE: 2}


def level_for_path(
    path: str, language: str | None, required: Mapping[str, str], native: Collection[str] = ()
) -> tuple[str, str | None]:
    """The level a file at `path` needs, and the language that raised it, if not its own.

    A file's content is untrusted, and content decides the language of an extension
    several languages share (`{{` makes an `.html` file Jinja, whose grammar is
    unqualified). So content may choose how a file is checked but never lower what a
    gate requires of it: the level is the strictest of the detected language's and the
    extension's own, where the extension's own is its default language's (the
    manifest's `[[shared]]` `default`: `.html` is HTML unless content says otherwise)
    and, for an extension with no default (`.ts` is TypeScript or Qt's XML), the
    strictest among every language it may hold. The second value names the language
    whose level was taken when it is stricter than the detected language's own (None
    otherwise), so the gate can say why and what to lower to accept such files.
    """
    from pathlib import PurePosixPath

    from orchestrator.model.languages import shared_defaults, shared_extensions

    own = level_for(language, required, native)
    best, raised_by = own, None
    ext = PurePosixPath(path).suffix.lower()
    default = shared_defaults().get(ext)
    for candidate in (default,) if default else shared_extensions().get(ext, ()):
        level = level_for(candidate, required, native)
        if _RANK[level] > _RANK[best]:
            best, raised_by = level, candidate
    return best, raised_by
