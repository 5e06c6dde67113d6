"""Read a recipe tool's output into findings: SARIF, JSON with a field mapping, or one
finding per line matched by a pattern.

`read_findings` is called only for a process the shared ladder let through (an
expected exit code, output within budget). Anything that is not the promised format
raises `Unparsable` (the files are then `tool_error`, never `checked`): a document that
is not JSON, an item without its path or line, a line the pattern does not match, a
finding exit code with no finding. The tool's text is untrusted: messages are cut to
one bounded line, paths are mapped back onto the files asked about (the base refuses
a result for any other).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from orchestrator.checkers.recipe_format import Recipe
from orchestrator.model.checker import FileTarget, one_line
from orchestrator.model.outcomes import Unparsable
from orchestrator.model.report import Finding, fingerprint
from orchestrator.procs import ProcResult
from orchestrator.vocab import Severity

#: SARIF levels -> severities, when the recipe maps none of them.
_SARIF_LEVELS = {"error": "error", "warning": "warning", "note": "info", "none": "info"}
_MESSAGE_LIMIT = 300


def _dig(item: Any, dotted: str | None) -> Any:
    """`item["a"]["b"]` for "a.b" (a digit part indexes a list); None when absent."""
    if dotted is None:
        return None
    cur = item
    for part in dotted.split(".") if dotted else ():
        if isinstance(cur, dict):
            cur = cur.get(part)
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return None
    return cur


def _positive(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return value if isinstance(value, int) and value >= 1 else None


def local_path(raw: str, root: Path) -> str:
    """The project-relative POSIX path a tool named (`./a.sh`, `file:///abs/a.sh`, an
    absolute path under `root`); any other path as it was printed."""
    if raw.startswith("file:"):
        raw = unquote(urlsplit(raw).path)
    p = PurePosixPath(raw)
    if p.is_absolute():
        try:
            return p.relative_to(PurePosixPath(root.as_posix())).as_posix()
        except ValueError:
            return raw
    parts = [x for x in p.parts if x != "."]
    return PurePosixPath(*parts).as_posix() if parts else raw


class _Reader:
    """Builds findings of one batch (the recipe, the targets, stdin or not)."""

    def __init__(
        self, recipe: Recipe, targets: Sequence[FileTarget], from_stdin: bool, root: Path
    ) -> None:
        self.recipe = recipe
        self.targets = targets
        self.from_stdin = from_stdin
        self.root = root
        self.found: dict[str, list[Finding]] = {}

    def severity(self, word: Any, defaults: Mapping[str, str] | None = None) -> Severity:
        key = str(word).lower() if word is not None else ""
        sev = self.recipe.severity.get(key) or (defaults or {}).get(key)
        return Severity(sev or self.recipe.severity.get("default") or "warning")

    def add(
        self,
        path: Any,
        line: Any,
        rule: Any,
        *,
        column: Any = None,
        end_line: Any = None,
        end_column: Any = None,
        word: Any = None,
        message: Any = None,
        defaults: Mapping[str, str] | None = None,
    ) -> None:
        if self.from_stdin:
            rel = self.targets[0].path
        elif isinstance(path, str) and path:
            rel = local_path(path, self.root)
        else:
            raise Unparsable("a finding without its path")
        if rule is None or rule == "":
            raise Unparsable("a finding without its rule id")
        rule_id = self.recipe.output.rule_format.replace("{}", str(rule))
        severity = self.severity(word, defaults)
        text = one_line(str(message or ""), _MESSAGE_LIMIT)
        self.found.setdefault(rel, []).append(
            Finding(
                checker=self.recipe.name,
                rule=one_line(rule_id, 120),
                severity=severity,
                tool_severity=one_line(str(word), 40) if word is not None else None,
                path=rel,
                line=_positive(line),
                column=_positive(column),
                end_line=_positive(end_line),
                end_column=_positive(end_column),
                message=text,
                blocking=severity == Severity.ERROR,
                fingerprint=fingerprint(self.recipe.name, rule_id, rel, text),
            )
        )


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise Unparsable(f"not JSON: {one_line(str(exc), 80)}") from exc


def _documents(text: str, skip: re.Pattern[str] | None) -> Iterator[Any]:
    """Each JSON document of a stream (`documents = "stream"`); a line before one that
    `skip` matches is skipped, any other text is refused."""
    decoder = json.JSONDecoder()
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return
        if text[at] not in "[{":
            end = text.find("\n", at)
            line = text[at : end if end >= 0 else len(text)]
            if skip is None or not skip.search(line):
                raise Unparsable(f"unparsable output line: {one_line(line, 80)}")
            at = len(text) if end < 0 else end + 1
            continue
        try:
            doc, at = decoder.raw_decode(text, at)
        except ValueError as exc:
            raise Unparsable(f"not JSON: {one_line(str(exc), 80)}") from exc
        yield doc


def _items(doc: Any, dotted: str) -> Iterator[tuple[Any, tuple[str, ...]]]:
    """Each findings array item at `dotted` in `doc`, with the keys its `*` parts
    matched (`*.*`: every value of every object); an array that is not there raises."""
    parts = dotted.split(".") if dotted else []
    if "*" not in parts:
        items = _dig(doc, dotted)
        if not isinstance(items, list):
            raise Unparsable(f"no findings array at {dotted or 'the top'!r}")
        yield from ((item, ()) for item in items)
        return
    star = parts.index("*")
    above = _dig(doc, ".".join(parts[:star])) if star else doc
    if not isinstance(above, dict):
        raise Unparsable(f"no object at {'.'.join(parts[:star]) or 'the top'!r}")
    rest = ".".join(parts[star + 1 :])
    for key, value in above.items():
        for item, keys in _items(value, rest):
            yield item, (str(key), *keys)


def _field(item: Any, keys: tuple[str, ...], dotted: str | None) -> Any:
    """A field's value: `*N` is the key the N-th `*` matched, else the dotted key."""
    if dotted is not None and re.fullmatch(r"\*\d+", dotted):
        n = int(dotted[1:])
        return keys[n - 1] if 1 <= n <= len(keys) else None
    return _dig(item, dotted)


_POSITION = re.compile(r"^(?P<path>.+?):(?P<line>\d+)(?::(?P<column>\d+))?$")


def _groups(output: Any, doc: Any) -> list[tuple[Any, Any]]:
    """(the object that holds the path, the object that holds the findings array) per
    file of a `files` document, else one pair for the whole document."""
    if output.files is None:
        return [(None, doc)]
    files = _dig(doc, output.files)
    if not isinstance(files, list) or not all(isinstance(f, dict) for f in files):
        raise Unparsable(f"no array of file objects at {output.files or 'the top'!r}")
    return [(f, f) for f in files]


def _read_json(reader: _Reader, text: str) -> None:
    output = reader.recipe.output
    fields = output.fields
    assert fields is not None  # the format requires it
    if output.documents == "stream":
        skip = re.compile(output.skip_pattern) if output.skip_pattern else None
        docs = list(_documents(text, skip))
    else:
        docs = [_json(text)] if text.strip() else []
    for doc in docs:
        for holder, scope in _groups(output, doc):
            for item, keys in _items(scope, output.items):
                _read_item(reader, holder, item, keys)


def _read_item(reader: _Reader, holder: Any, item: Any, keys: tuple[str, ...]) -> None:
    """One finding; its path read from `holder` when the recipe reads one object per
    file (`files`), else from the finding itself."""
    fields = reader.recipe.output.fields
    assert fields is not None  # the format requires it
    if not isinstance(item, dict):
        raise Unparsable("a findings array item that is not an object")
    path = _field(item if holder is None else holder, keys, fields.path)
    line = _field(item, keys, fields.line)
    column = _field(item, keys, fields.column)
    if fields.position is not None:
        m = _POSITION.match(str(_field(item, keys, fields.position) or ""))
        if m is None:
            raise Unparsable("a finding without its position (PATH:LINE)")
        path, line, column = m["path"], m["line"], m["column"] or column
    if _positive(line) is None and line not in (0, "0"):
        raise Unparsable("a finding without its line")
    reader.add(
        path,
        line,
        _field(item, keys, fields.rule),
        column=column,
        end_line=_field(item, keys, fields.end_line),
        end_column=_field(item, keys, fields.end_column),
        word=_field(item, keys, fields.severity),
        message=_field(item, keys, fields.message),
    )


def _sarif_results(doc: Any) -> Iterator[dict[str, Any]]:
    runs = doc.get("runs") if isinstance(doc, dict) else None
    if not isinstance(runs, list):
        raise Unparsable("not a SARIF log (no runs)")
    for run in runs:
        results = run.get("results", []) if isinstance(run, dict) else None
        if not isinstance(results, list):
            raise Unparsable("a SARIF run whose results are not a list")
        yield from (r for r in results if isinstance(r, dict))


def _read_sarif(reader: _Reader, text: str) -> None:
    for result in _sarif_results(_json(text)):
        loc = _dig(result, "locations.0.physicalLocation")
        region = _dig(loc, "region") or {}
        rule = result.get("ruleId") or _dig(result, "rule.id")
        reader.add(
            _dig(loc, "artifactLocation.uri"),
            region.get("startLine"),
            rule,
            column=region.get("startColumn"),
            end_line=region.get("endLine"),
            end_column=region.get("endColumn"),
            word=result.get("level", "warning"),
            message=_dig(result, "message.text"),
            defaults=_SARIF_LEVELS,
        )


def _read_pattern(reader: _Reader, text: str) -> None:
    output = reader.recipe.output
    assert output.pattern is not None  # the format requires it
    rx = re.compile(output.pattern)
    skip = re.compile(output.skip_pattern) if output.skip_pattern else None
    errors = re.compile(output.file_error_pattern) if output.file_error_pattern else None
    asked = {t.path for t in reader.targets}
    longest_first = sorted(asked, key=len, reverse=True)
    for raw in text.splitlines():
        m = rx.search(raw)
        own = None
        if m is not None and not reader.from_stdin:
            m, own = _longest_path(rx, raw, m, longest_first, reader.root)
        # A line naming a file of the batch is that file's finding, whatever else it
        # looks like: a file named `Ignored unknown option x.js` is no skipped line.
        named = (
            m is not None
            and not reader.from_stdin
            and (own is not None or _names(m, reader.root, asked))
        )
        if not named and skip is not None and skip.search(raw):
            continue
        if not named and errors is not None and errors.search(raw):
            continue  # a file it could not judge (`file_errors`)
        if m is None:
            if raw.strip() and output.strict_lines:
                raise Unparsable(f"unparsable output line: {one_line(raw, 80)}")
            continue
        g = m.groupdict()
        if output.format_check:
            g["message"] = g.get("message") or "would reformat"
        reader.add(
            own if own is not None else g.get("path"),
            g.get("line"),
            g.get("rule") or reader.recipe.name,
            column=g.get("column"),
            end_line=g.get("end_line"),
            end_column=g.get("end_column"),
            word=g.get("severity"),
            message=g.get("message") or raw,
        )


#: Stands for one of the batch's paths while a line is matched again: no character a
#: pattern's separators could stop at inside it (a file name never holds NUL).
_PATH_TOKEN = "\x00orchestrate-path\x00"


def _longest_path(
    rx: re.Pattern[str], raw: str, m: re.Match[str], longest_first: list[str], root: Path
) -> tuple[re.Match[str], str | None]:
    """The match of `raw` for the longest file of the batch its path starts with, and
    that file (None: `m` as it was). A lazy path group stops at the first separator:
    beside `a.js`, a file named `a.js: format: b.js` would have its findings read as
    `a.js`'s and its own scope clean; the line is matched again with the longer name
    held as one token, and kept only when the whole pattern still matches."""
    found = m.groupdict().get("path")
    if found is None:
        return m, None
    start = m.start("path")
    rest = raw[start:]
    for path in longest_first:
        if len(path) <= len(found):
            break
        for printed in (path, f"./{path}", f"{root.as_posix()}/{path}"):
            if not rest.startswith(printed):
                continue
            again = rx.search(raw[:start] + _PATH_TOKEN + raw[start + len(printed) :])
            if again is not None and again.groupdict().get("path") == _PATH_TOKEN:
                return again, path
    return m, None


def _names(m: re.Match[str], root: Path, asked: set[str]) -> bool:
    """Whether a `pattern` match's path is one of the batch's files."""
    path = m.groupdict().get("path")
    return bool(path) and local_path(path, root) in asked


_READERS = {"json": _read_json, "sarif": _read_sarif, "pattern": _read_pattern}


def read_findings(
    recipe: Recipe,
    res: ProcResult,
    targets: Sequence[FileTarget],
    from_stdin: bool,
    root: Path,
) -> dict[str, list[Finding]]:
    """The findings per project-relative path in the output of one batch (module
    docstring); raises `Unparsable` for output that is not the recipe's format."""
    if recipe.output.stderr_is_error and res.stderr.strip():
        raise Unparsable(f"the tool reported an error: {one_line(res.stderr, 160)}")
    raw = res.stdout if recipe.output.stream == "stdout" else res.stderr
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unparsable("output that is not UTF-8") from exc
    reader = _Reader(recipe, targets, from_stdin, root)
    _READERS[recipe.output.format](reader, text)
    if (
        res.returncode != 0
        and not reader.found
        and not file_errors(recipe, res, targets, from_stdin, root)
    ):
        raise Unparsable(f"exit {res.returncode} without any finding")
    return reader.found


def file_errors(
    recipe: Recipe, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool, root: Path
) -> dict[str, str]:
    """The files of one batch the tool says it could not judge (`[output]
    file_error_pattern`), each with its message as a bounded line; {} without it."""
    output = recipe.output
    if output.file_error_pattern is None:
        return {}
    raw = res.stdout if output.stream == "stdout" else res.stderr
    text = raw.decode("utf-8", "replace")
    skip = re.compile(output.skip_pattern) if output.skip_pattern else None
    rx = re.compile(output.file_error_pattern)
    out: dict[str, str] = {}
    for line in text.splitlines():
        if (skip is not None and skip.search(line)) or not (m := rx.search(line)):
            continue
        path = targets[0].path if from_stdin else local_path(m["path"], root)
        said = m.groupdict().get("message") or line
        out.setdefault(path, one_line(f"{recipe.name} could not judge it: {said}", _MESSAGE_LIMIT))
    return out


def unnamed_files(
    recipe: Recipe, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool, root: Path
) -> dict[str, str]:
    """The files of one batch that no line matching `[output] judged_pattern` names (the
    tool's own ignore rules skipped them), each with the reason; {} without the key, or
    for source on stdin (the tool judged what it was given)."""
    output = recipe.output
    if output.judged_pattern is None or from_stdin:
        return {}
    raw = res.stdout if (output.judged_stream or output.stream) == "stdout" else res.stderr
    rx = re.compile(output.judged_pattern)
    named = {
        local_path(m["path"], root)
        for line in raw.decode("utf-8", "replace").splitlines()
        if (m := rx.search(line))
    }
    why = f"{recipe.name}'s own ignore rules skip it (as run directly)"
    return {t.path: why for t in targets if t.path not in named}


def skipped_files(
    recipe: Recipe, res: ProcResult, targets: Sequence[FileTarget], from_stdin: bool, root: Path
) -> dict[str, str]:
    """The files of one batch whose object in the tool's JSON has `[output]
    skipped_key` true (its own ignore rules skipped them), each with the reason."""
    output = recipe.output
    if output.skipped_key is None or output.files is None:
        return {}
    raw = res.stdout if output.stream == "stdout" else res.stderr
    text = raw.decode("utf-8")
    if not text.strip():
        return {}
    fields = output.fields
    assert fields is not None  # the format requires it
    out: dict[str, str] = {}
    for holder, _scope in _groups(output, _json(text)):
        if _dig(holder, output.skipped_key) is True:
            path = _dig(holder, fields.path)
            if from_stdin:
                rel = targets[0].path
            elif isinstance(path, str) and path:
                rel = local_path(path, root)
            else:
                raise Unparsable("a skipped file without its path")
            out[rel] = f"{recipe.name}'s own ignore rules skip it (as run directly)"
    return out
