"""An orchestrate checker plugin that wraps yamllint (example of a third-party plugin).

Registered through the ``orchestrate`` entry-point group in this package's
pyproject.toml. Built on `orchestrator.api.CommandChecker`: this module declares what
yamllint is and parses its `-f parsable` lines; the base finds yamllint, batches the
files, runs them under the run's deadline and output budget (staged content over
stdin) and gives the reuse identity.

yamllint runs only under the project's own configuration (`.yamllint`,
`.yamllint.yaml` or `.yamllint.yml` at the project root): its built-in defaults are
not the project's rules (a line-length limit on every generated YAML file), so a
project without one gets `configuration_required` and the syntax fallback.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

# The one module a plugin imports from: it stays put when orchestrate's internals move.
from orchestrator.api import (
    CommandChecker,
    FileTarget,
    Finding,
    ProcResult,
    Severity,
    Unparsable,
    fingerprint,
    hookimpl,
    one_line,
)

NAME = "yamllint"
# path:line:column: [level] message (rule)
_LINE = re.compile(r"^(?P<path>.*):(?P<line>\d+):(?P<col>\d+): \[(?P<level>\w+)\] (?P<msg>.*)$")
_RULE = re.compile(r"\s\((?P<rule>[\w-]+)\)$")
#: A config line that makes yamllint read another file (a local `extends`, ignores
#: from a file): the reuse identity would not hold those bytes.
_READS_OTHER = re.compile(
    r"^[ \t]*(?:extends[ \t]*:[ \t]*+(?!['\"]?(?:default|relaxed)['\"]?[ \t]*(?:#.*)?$)"
    r"|ignore-from-file[ \t]*:)",
    re.MULTILINE,
)


class YamllintChecker(CommandChecker):
    """Native YAML lint evidence from yamllint."""

    name = NAME
    languages = frozenset({"yaml"})
    #: Claimed by suffix when detection did not decide (by content: MiniYAML is not YAML).
    suffixes = (".yaml", ".yml")
    #: yamllint counts columns in characters (Python `str` indices).
    column_unit = "codepoint"
    #: Installed beside orchestrate (a dependency of this package), run as
    #: `python -m yamllint`; its version is the distribution's.
    python_module = "yamllint"
    args = ("-f", "parsable")
    #: 1: errors found, 2: warnings under --strict; exit 0 and silence is clean.
    exits = (0, 1, 2)
    quiet_ok = True
    #: The files that say the project uses yamllint: a strict gate copies them from the
    #: judged surface into its private tree, so the gate runs under the same rules.
    config_names = (".yamllint", ".yamllint.yaml", ".yamllint.yml")
    #: It runs only under one of those files at the project root (its built-in
    #: defaults are not the project's rules): without one, YAML asks no yamllint
    #: evidence of a gate and the syntax fallback judges it.
    config_required = True
    config_hint = "add .yamllint.yaml with the project's rules (extends: default, or relaxed)"

    def config_reads_other_files(self, name: str, data: bytes) -> bool:
        """A local `extends` or an `ignore-from-file`: never reused."""
        return _READS_OTHER.search(data.decode("utf-8", "replace")) is not None

    def parse(
        self, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool
    ) -> Mapping[str, Sequence[Finding]]:
        """`-f parsable` lines -> findings; any other line, or a finding exit code
        without a finding, is not yamllint's promised output."""
        per_path: dict[str, list[Finding]] = {}
        for raw in res.stdout.decode("utf-8").splitlines():
            m = _LINE.match(raw)
            if m is None:
                if raw.strip():
                    raise Unparsable(f"unparsable output line: {one_line(raw, 80)}")
                continue
            path = targets[0].path if from_stdin else m["path"]
            per_path.setdefault(path, []).append(_finding(path, m))
        if res.returncode != 0 and not per_path:
            raise Unparsable("a finding exit code without any finding")
        return per_path


def _finding(path: str, m: re.Match[str]) -> Finding:
    msg = m["msg"]
    rule_m = _RULE.search(msg)
    rule = rule_m["rule"] if rule_m else "syntax"
    if rule_m:
        msg = msg[: rule_m.start()]
    severity = Severity.ERROR if m["level"] == "error" else Severity.WARNING
    return Finding(
        checker=NAME,
        rule=rule,
        severity=severity,
        tool_severity=m["level"],
        path=path,
        line=int(m["line"]) or None,
        column=int(m["col"]) or None,
        message=one_line(msg, 300),
        blocking=severity == Severity.ERROR,
        fingerprint=fingerprint(NAME, rule, path, msg.strip()),
    )


@hookimpl
def orchestrate_checkers() -> list[Any]:
    """The entry point's hook: this plugin provides one checker."""
    return [YamllintChecker()]
