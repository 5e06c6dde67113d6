"""Ruff's rule metadata for SARIF: names, one-line summaries and documentation links.

`ruff rule --all --output-format json` lists every rule of the Ruff that runs (code,
name, summary). It is asked only when a SARIF log is rendered (hook
`orchestrate_rule_docs`, never during a lint), and its answer is kept per Ruff version
in the user's cache folder (`user_cache_root()/ruff-rules/`), written atomically, so a
later SARIF render of the same Ruff runs nothing. A Ruff that cannot answer (old,
missing, timed out) gives None: the findings' own words are used.
"""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any

from orchestrate_plugins._common import rule_description

from orchestrator.api import Deadline, atomic_write, run_bounded, user_cache_root

#: Ruff's documentation home, SARIF's `informationUri` of the Ruff component.
INFORMATION_URI = "https://docs.astral.sh/ruff/"
#: A rule's page: Ruff's docs name each rule's page after the rule's name.
_RULE_PAGE = INFORMATION_URI + "rules/{name}/"
#: `ruff rule --all` is ~1,000 rules with their full explanations (a few MB).
_OUTPUT_BUDGET = 32 * 1024 * 1024
_SECONDS = 20.0
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,99}")
_CODE = re.compile(r"[A-Z]{1,8}[0-9]{1,6}")


def cache_file(version: str) -> Path:
    """Where the rule table of Ruff `version` ("ruff 0.8.1" or "0.8.1") is kept."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", version.removeprefix("ruff ").strip())[:64]
    return user_cache_root() / "ruff-rules" / f"{safe or 'unknown'}.json"


def _table(listing: Any) -> dict[str, dict[str, str]]:
    """code -> {name, short_description} from `ruff rule --all` JSON (untrusted:
    anything not shaped as expected is left out)."""
    out: dict[str, dict[str, str]] = {}
    for item in listing if isinstance(listing, list) else []:
        if not isinstance(item, dict):
            continue
        code, name = item.get("code"), item.get("name")
        if not (isinstance(code, str) and _CODE.fullmatch(code)):
            continue
        row: dict[str, str] = {}
        if isinstance(name, str) and _NAME.fullmatch(name):
            row["name"] = name
        summary = rule_description(item.get("summary"))
        if summary:
            row["short_description"] = summary
        out[code] = row
    return out


def _read_cache(path: Path) -> dict[str, dict[str, str]] | None:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    # Re-checked as the tool's own output is: anything in the user's cache folder may
    # have been written by something else running as the user.
    return _table([{"code": k, **v} for k, v in data.items() if isinstance(v, dict)])


def _ask_ruff(tool: str) -> dict[str, dict[str, str]] | None:
    res = run_bounded(
        [tool, "rule", "--all", "--output-format", "json"],
        deadline=Deadline.after(_SECONDS),
        output_budget=_OUTPUT_BUDGET,
    )
    if not res.ok or res.returncode != 0:
        return None
    try:
        table = _table(json.loads(res.stdout))
    except ValueError:
        return None
    return table or None


def rule_docs(tool: str | None, version: str | None) -> dict[str, Any] | None:
    """The `orchestrate_rule_docs` answer for the Ruff at `tool` of `version`: its
    home page and, per rule code, its name, summary and documentation page."""
    if not tool or not version:
        return None
    path = cache_file(version)
    table = _read_cache(path)
    if not table:
        table = _ask_ruff(tool)
        if table is None:
            return {"information_uri": INFORMATION_URI}
        with contextlib.suppress(OSError):  # no cache folder: asked again next time
            atomic_write(path, json.dumps(table, sort_keys=True).encode("utf-8"), durable=False)
    rules = {
        code: {**row, "help_uri": _RULE_PAGE.format(name=row["name"])} if "name" in row else row
        for code, row in table.items()
    }
    return {"information_uri": INFORMATION_URI, "rules": rules}
