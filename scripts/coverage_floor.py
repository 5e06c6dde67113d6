"""Line coverage of a coverage.py JSON report, per package and per module, against floors.

    python scripts/coverage_floor.py /tmp/fastcov.json

Prints each package's and each module's line coverage, then the modules under the
floors, and exits 1 when any floor fails: `orchestrator/decisions/`,
`orchestrator/usecases/` and `orchestrator/model/` (each as a whole) at least 85%, and
every module but `__main__` at least 50%. A module with no statements (an empty `__init__`) counts as
fully covered. Exit 2 when the report cannot be read.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

#: Packages (folders, POSIX, relative to the project root) held to the package floor.
PACKAGE_FLOOR_DIRS = ("orchestrator/decisions", "orchestrator/usecases", "orchestrator/model")
PACKAGE_FLOOR = 85.0
MODULE_FLOOR = 50.0


@dataclass(frozen=True)
class Lines:
    """Covered and measured statements of a module or a package."""

    covered: int
    statements: int

    @property
    def percent(self) -> float:
        """Line coverage in percent (100 when nothing is measured)."""
        return 100.0 if self.statements == 0 else 100.0 * self.covered / self.statements


def _relative(path: str) -> str:
    """`path` as POSIX and relative to the project root (the report may hold absolutes)."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    for top in ("orchestrator", "plugins"):
        if top in parts:
            return "/".join(parts[len(parts) - 1 - parts[::-1].index(top) :])
    return "/".join(parts)


def module_lines(report: Mapping[str, Any]) -> dict[str, Lines]:
    """Each measured file of a coverage.py JSON report: its covered and measured lines."""
    out: dict[str, Lines] = {}
    for path, data in report.get("files", {}).items():
        summary = data.get("summary", {})
        out[_relative(path)] = Lines(
            int(summary.get("covered_lines", 0)), int(summary.get("num_statements", 0))
        )
    return out


def package_lines(modules: Mapping[str, Lines]) -> dict[str, Lines]:
    """The modules summed by the folder that holds them."""
    sums: dict[str, list[int]] = {}
    for path, lines in modules.items():
        row = sums.setdefault(str(PurePosixPath(path).parent), [0, 0])
        row[0] += lines.covered
        row[1] += lines.statements
    return {name: Lines(c, s) for name, (c, s) in sums.items()}


def failures(
    modules: Mapping[str, Lines],
    packages: Sequence[str] = PACKAGE_FLOOR_DIRS,
    package_floor: float = PACKAGE_FLOOR,
    module_floor: float = MODULE_FLOOR,
) -> list[str]:
    """One line per floor not met: a floored package below `package_floor` (or not
    measured at all), and every module below `module_floor`."""
    out: list[str] = []
    by_package = package_lines(modules)
    for name in packages:
        lines = by_package.get(name)
        if lines is None:
            out.append(f"package {name}: not in the report")
        elif lines.percent < package_floor:
            out.append(f"package {name}: {lines.percent:.1f}% < {package_floor:.0f}%")
    for path, lines in sorted(modules.items()):
        # `python -m` entries run only end to end, as the module meta-test leaves them out.
        if PurePosixPath(path).name != "__main__.py" and lines.percent < module_floor:
            out.append(f"module {path}: {lines.percent:.1f}% < {module_floor:.0f}%")
    return out


def render(modules: Mapping[str, Lines]) -> str:
    """The per-package and per-module table, packages first, sorted by path."""
    rows = ["package                                      covered / statements   percent"]
    for name, lines in sorted(package_lines(modules).items()):
        rows.append(f"{name:<44} {lines.covered:>7} / {lines.statements:<10} {lines.percent:6.1f}%")
    rows.append("")
    rows.append("module                                       covered / statements   percent")
    for path, lines in sorted(modules.items()):
        rows.append(f"{path:<44} {lines.covered:>7} / {lines.statements:<10} {lines.percent:6.1f}%")
    return "\n".join(rows)


def main(argv: Sequence[str]) -> int:
    """Print the table and the floors not met; 0 when all floors hold, 1 when one fails,
    2 when the report cannot be read."""
    if len(argv) != 1:
        print("usage: coverage_floor.py REPORT.json", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as fh:
            report = json.load(fh)
    except (OSError, ValueError) as exc:
        print(f"coverage_floor: cannot read {argv[0]}: {exc}", file=sys.stderr)
        return 2
    modules = module_lines(report)
    print(render(modules))
    failed = failures(modules)
    print()
    if failed:
        print(f"{len(failed)} floor(s) not met:")
        print("\n".join(f"  {line}" for line in failed))
        return 1
    print("all floors met")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
