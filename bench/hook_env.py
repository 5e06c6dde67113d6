"""What an install of orchestrate weighs: the pre-commit lint hook's environment.

Builds the wheel from this checkout, installs it into fresh venvs (plain, as pre-commit's
`language: python` hook installs it, and with the `lsp` and `mcp` extras) and prints the
megabytes of each venv beside the tree-sitter grammar pack, and the part beyond the
pack (issue 30's row: "pre-commit lint hook environment, beyond the grammar pack",
aim <= 40 MB). pip and setuptools, which every venv holds, are left out of both.
Usage: .venv/bin/python bench/hook_env.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
#: What a fresh venv holds before anything is installed (not part of the install).
VENV_OWN = ("pip", "setuptools", "_distutils_hack", "distutils-precedence.pth")
PACK = "tree_sitter_language_pack"


def _size(path: Path) -> int:
    if path.is_symlink() or path.is_file():
        return path.lstat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink())


def _measure(venv: Path) -> dict[str, float]:
    (site,) = (venv / "lib").glob("python3*/site-packages")
    own = sum(_size(p) for p in site.iterdir() if p.name.split("-")[0] in VENV_OWN)
    total = _size(venv) - own
    pack = sum(_size(p) for p in site.iterdir() if p.name.startswith(PACK))
    mb = 1_000_000
    return {"total": total / mb, "pack": pack / mb, "beyond": (total - pack) / mb}


#: Each measured install: its label and the pip requirement built from the wheel.
INSTALLS = (("plain (the pre-commit hook)", ""), ("[lsp,mcp]", "[lsp,mcp]"))


def measure_installs(work: Path) -> dict[str, dict[str, float]]:
    """Build this checkout's wheel under `work`, install it into one fresh venv per entry
    of INSTALLS, and return each venv's megabytes: total, grammar pack, beyond the pack.
    Raises CalledProcessError when the build or an install fails (no figure is guessed)."""
    dist = work / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(REPO)],
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("orchestrate_lint-*.whl")
    sizes: dict[str, dict[str, float]] = {}
    for label, extras in INSTALLS:
        venv = work / ("venv-" + (extras.strip("[]").replace(",", "-") or "plain"))
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run(
            [
                str(venv / "bin" / "python"),
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                f"{wheel}{extras}",
            ],
            check=True,
            capture_output=True,
        )
        sizes[label] = _measure(venv)
    return sizes


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--keep", type=Path, help="build and install under this folder")
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="orchestrate-hook-env-"))
    print(f"{'install':<28} {'MB':>8} {'grammar pack':>13} {'beyond it':>10}")
    for label, m in measure_installs(work).items():
        print(f"{label:<28} {m['total']:>8.0f} {m['pack']:>13.0f} {m['beyond']:>10.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
