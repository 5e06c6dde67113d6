"""The shape of the project configuration: every key orchestrate reads, with its type.

`orchestrate.toml` (top-level keys) or `[tool.orchestrate]` in pyproject.toml. A key
the model does not name, or a value of the wrong type, is refused (extra="forbid",
strict types): a typo must never be ignored, and never weaken a gate.
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from orchestrator.errors import UsageError
from orchestrator.model.checker import MAX_FILE_BYTES
from orchestrator.safetext import printable

#: A required coverage level (decisions/required.LEVELS).
Level = Literal["native", "syntax", "none"]
#: The most project recipes one config names.
MAX_PROJECT_RECIPES = 32
#: A project recipe's path: relative, POSIX, inside the project, a `.toml` file.
_RECIPE_PATH = re.compile(r"^(?!/)(?!.*(?:^|/)\.\.?(?:/|$))[A-Za-z0-9._/+-]{1,200}\.toml$")
#: How many validation errors one message lists.
MAX_ERRORS = 5


class ServerConfig(BaseModel):
    """The `[server]` table: the optional warm engine (README "Warm engine")."""

    model_config = ConfigDict(extra="forbid", strict=True)

    #: Start the engine on demand for edit feedback (`lint --feedback`, a host's edit
    #: hook) when none runs; `false` leaves starting it to `orchestrate server start`.
    auto: bool = True
    #: Seconds without a request after which the engine exits, 10..86400; unset, 1800
    #: for an engine `server start` started and 300 for one feedback started.
    idle_timeout: int | None = Field(default=None, ge=10, le=86400)


class ProjectConfig(BaseModel):
    """The validated settings (README "Configuration", docs/gates.md, docs/hygiene.md)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    #: Parallel batches (the CLI's --jobs wins), 1..64.
    jobs: int | None = Field(default=None, ge=1, le=64)
    #: Plugins not to load by name (essential ones load anyway).
    disable_plugins: list[str] = Field(default_factory=list)
    #: Folders selection never walks into, added to the built-in ones.
    exclude_dirs: list[str] = Field(default_factory=list)
    #: The most bytes of one file parsed in orchestrate's own process (the syntax
    #: fallback; model/checker.MAX_PARSE_BYTES when unset): larger files are not_run.
    max_parse_bytes: int | None = Field(default=None, ge=1024, le=MAX_FILE_BYTES)
    #: Run the policy checks (the secret scan) in a plain lint too.
    policy_in_lint: bool = False
    #: Refuse an agent's file-edit tools, and shell writes the analyser sees, aimed at a
    #: checker's configuration (the loaded checkers' `config_names`: pyproject.toml,
    #: ruff.toml, eslint.config.js, .rubocop.yml, ..., the project's recipe files), so an
    #: agent fixes code instead of silencing a linter (docs/hosts.md).
    protect_checker_config: bool = False
    #: Which exact parsers that are separate programs also judge the files the grammar
    #: found clean: unset, the cheap ones (sh, bash, gofmt, xmllint); true, all of them;
    #: a list of languages, those too; false, none. The in-process parsers (JSON, TOML,
    #: YAML) judge every file of their language regardless (docs/grammars.md).
    exact_parse_clean: bool | list[str] | None = None
    #: Ignored, with a note: a tool path is machine-local (core/tool_paths: the user
    #: config's `[tools]`, `ORCHESTRATE_TOOL_<NAME>`); accepted so an older config loads.
    tools: dict[str, Any] = Field(default_factory=dict)
    #: Required coverage per language (and `default`) for delivery gates.
    required: dict[str, Level] = Field(default_factory=dict)
    #: The hygiene rulebook table; its fields are validated by hygiene/rulebook.py.
    hygiene: dict[str, Any] = Field(default_factory=dict)
    #: Show a progress count on a terminal during a long `lint` (cli/progress.py).
    progress: bool = True
    #: The warm engine.
    server: ServerConfig = Field(default_factory=ServerConfig)
    #: Project recipes: paths of recipe files (TOML, the recipe format) inside the
    #: project. They only add checkers, run in `lint` only once `orchestrate trust`
    #: recorded their digest, and at a strict gate only as the base holds them
    #: (checkers/project_recipes.py, plugins/README.md).
    recipes: list[str] = Field(default_factory=list, max_length=MAX_PROJECT_RECIPES)

    @field_validator("recipes")
    @classmethod
    def _recipe_paths(cls, value: list[str]) -> list[str]:
        for path in value:
            if not _RECIPE_PATH.match(path) or "//" in path:
                raise ValueError(
                    f"{printable(repr(path))} is not a recipe path: a relative path inside"
                    " the project ending in .toml (no `..`, no absolute path)"
                )
        if len(set(value)) != len(value):
            raise ValueError("a recipe path is given twice")
        return value


def _near_miss(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _one(err: Any, prefix: str) -> str:
    loc = [str(x) for x in err["loc"]]
    key = printable(prefix + ".".join(loc))
    if err["type"] == "extra_forbidden":
        fields = list(ProjectConfig.model_fields) if len(loc) == 1 else []
        return f"{key}: unknown key{_near_miss(loc[-1], fields)}"
    if err["type"] == "value_error":
        what = str(err.get("ctx", {}).get("error", err["msg"]))
    else:
        what = err["msg"][:1].lower() + err["msg"][1:]
    got = printable(repr(err.get("input")))
    got = got if len(got) <= 60 else got[:59] + "…"
    hint = ""
    if err["type"] == "literal_error" and isinstance(err.get("input"), str):
        hint = _near_miss(err["input"], re.findall(r"'([^']*)'", err["ctx"]["expected"]))
    return f"{key}: {what}, got {got}{hint}"


def _unknown_languages(model: ProjectConfig, prefix: str) -> list[str]:
    """The `required` keys that name no language detection gives a file (`default`
    aside): a misspelt one would make a gate require nothing of the files meant."""
    if not model.required:
        return []
    from orchestrator.decisions.required import NATIVE_LANGUAGES
    from orchestrator.model.languages import known_languages

    known = known_languages() | NATIVE_LANGUAGES
    out = []
    for lang in model.required:
        if lang == "default" or lang in known:
            continue
        # A display name (`Python`) is the commonest miss: its lower case is compared too.
        hint = _near_miss(lang.lower(), sorted(known)) or _near_miss(lang, sorted(known))
        out.append(f"{printable(prefix + 'required.' + lang)}: unknown language{hint}")
    return out


def validate_settings(table: dict[str, Any], source: str, prefix: str = "") -> dict[str, Any]:
    """The settings of `table` as read from `source`, when ProjectConfig accepts them.

    Raises UsageError (exit 2) with one line naming `source`, each wrong key dotted (after
    `prefix`, e.g. "tool.orchestrate."), what is wrong and, for a near miss, the key or
    value meant; a `required` key that names no known language is refused the same way.
    The returned dict holds exactly the keys the table set.
    """
    try:
        model = ProjectConfig.model_validate(table)
    except ValidationError as exc:
        errors = exc.errors()
        parts = [_one(err, prefix) for err in errors[:MAX_ERRORS]]
        more = f"; and {len(errors) - MAX_ERRORS} more" if len(errors) > MAX_ERRORS else ""
        raise UsageError(f"{printable(source)}: {'; '.join(parts)}{more}") from None
    parts = _unknown_languages(model, prefix)
    if parts:
        more = f"; and {len(parts) - MAX_ERRORS} more" if len(parts) > MAX_ERRORS else ""
        raise UsageError(f"{printable(source)}: {'; '.join(parts[:MAX_ERRORS])}{more}")
    return model.model_dump(exclude_unset=True)


__all__ = ["Level", "ProjectConfig", "ServerConfig", "validate_settings"]
