"""Pinned corpora and managed tools: the manifest, where each item lives, and the fetch.

The manifest is scripts/corpora.toml (see docs/corpora.md). An sdist is read straight
from the package index pip is configured with (its JSON page, PEP 691), else through
pip; every other item through the registry's own client (npm, apt-get). Each is checked
against the hash the manifest pins, unpacked into a staging folder and renamed into place, so a reader
sees a whole item or none. Items live in the user's cache folder, never the repository:
`$ORCHESTRATE_CORPORA`, else `<user cache>/orchestrate-corpora`. scripts/fetch is the
command; the tests reach the same functions through tests/helpers.py `corpus()`.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import fnmatch
import hashlib
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from zlib import error as zlib_error

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "corpora.toml"
ENV_ROOT = "ORCHESTRATE_CORPORA"
STAMP = ".stamp"
KINDS = ("pypi-sdist", "npm-package", "npm-lock", "debian-deb")
#: The group a plain `scripts/fetch` fetches; other groups are opt-in (`--group`).
DEFAULT_GROUP = "default"
#: Bounds on one archive: more members or bytes than this is refused, not unpacked.
MAX_MEMBERS = 20_000
MAX_BYTES = 256 * 1024 * 1024
TIMEOUT = 600
_OFFLINE_SIGNS = (
    "ENOTFOUND",
    "ECONNREFUSED",
    "ECONNRESET",
    "ETIMEDOUT",
    "EAI_AGAIN",
    "ENETUNREACH",
    "Failed to establish a new connection",
    "Max retries exceeded",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Connection refused",
    "Network is unreachable",
    "timed out",
)


class FetchError(Exception):
    """An item could not be fetched; the message says why and what to do."""


class UnsafeArchive(FetchError):
    """An archive holds a member that may not be unpacked (escape, link, device, bomb)."""


@dataclass(frozen=True)
class Item:
    """One manifest entry: what to fetch, from where, pinned how, for whom."""

    id: str
    kind: str
    name: str = ""
    version: str = ""
    sha256: str = ""
    integrity: str = ""
    lock: str = ""
    #: (`debian-deb`) only the files matching `members` (fnmatch globs, `*` crosses `/`)
    #: are unpacked: of the package's tree (paths `usr/...`, to <id>/root/), or, with
    #: `unzip` (a zip file in that tree), of that zip (to <id>/unzip/).
    unzip: str = ""
    members: tuple[str, ...] = ()
    #: Who asks for it: `default` (plain scripts/fetch) or an opt-in group (`--group`).
    group: str = DEFAULT_GROUP
    used_by: tuple[str, ...] = ()
    why: str = ""
    base: Path = field(default=HERE, compare=False)

    def lock_dir(self) -> Path | None:
        """The folder holding this item's package.json and package-lock.json, if any."""
        return (self.base / self.lock) if self.lock else None


def load_manifest(path: Path = MANIFEST) -> dict[str, Item]:
    """The items of the manifest at `path`, by id; raises FetchError on a malformed one."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != 1:
        raise FetchError(f"{path}: unknown manifest format {data.get('format')!r}")
    items: dict[str, Item] = {}
    for raw in data.get("item", []):
        raw = dict(raw)
        raw["used_by"] = tuple(raw.get("used_by", ()))
        raw["members"] = tuple(raw.get("members", ()))
        try:
            item = Item(base=path.parent, **raw)
        except TypeError as exc:
            raise FetchError(f"{path}: bad item {raw.get('id')!r}: {exc}") from None
        _validate(item, path)
        if item.id in items:
            raise FetchError(f"{path}: item {item.id!r} appears twice")
        items[item.id] = item
    return items


def _validate(item: Item, path: Path) -> None:
    if not item.id or "/" in item.id or item.id.startswith("."):
        raise FetchError(f"{path}: bad item id {item.id!r}")
    if item.kind not in KINDS:
        raise FetchError(f"{path}: item {item.id}: kind {item.kind!r} is not one of {KINDS}")
    needs = {
        "pypi-sdist": ("name", "version", "sha256"),
        "npm-package": ("name", "version", "integrity"),
        "npm-lock": ("lock",),
        "debian-deb": ("name", "version", "sha256"),
    }[item.kind]
    missing = [k for k in needs if not getattr(item, k)]
    if missing:
        raise FetchError(f"{path}: item {item.id} ({item.kind}) lacks {', '.join(missing)}")
    if item.unzip and not item.members:
        raise FetchError(f"{path}: item {item.id}: `unzip` needs `members`")
    if item.members and item.kind != "debian-deb":
        raise FetchError(f"{path}: item {item.id}: `members` needs kind debian-deb")
    if item.unzip and (item.unzip.startswith("/") or ".." in Path(item.unzip).parts):
        raise FetchError(f"{path}: item {item.id}: `unzip` must be a path inside the package")
    lock = item.lock_dir()
    if lock and not (lock / "package-lock.json").is_file():
        raise FetchError(f"{path}: item {item.id}: {lock}/package-lock.json is missing")


def cache_root() -> Path:
    """Where the items live: `$ORCHESTRATE_CORPORA`, else the user cache folder's
    `orchestrate-corpora` (platformdirs; `$XDG_CACHE_HOME` or ~/.cache without it)."""
    env = os.environ.get(ENV_ROOT)
    if env:
        return Path(env)
    try:
        import platformdirs
    except ImportError:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(base) / "orchestrate-corpora"
    return Path(platformdirs.user_cache_dir("orchestrate-corpora", appauthor=False))


def stamp_of(item: Item) -> str:
    """The identity of `item` as pinned: its manifest fields and its lock file's bytes.
    A fetched item whose stamp differs is stale and is fetched again."""
    fields = {k: getattr(item, k) for k in ("id", "kind", "name", "version", "sha256")}
    fields["integrity"] = item.integrity
    if item.members:  # only when set: the stamps of other items stay as they were
        fields["unzip"] = item.unzip
        fields["members"] = list(item.members)
    lock = item.lock_dir()
    if lock:
        fields["lock"] = hashlib.sha256((lock / "package-lock.json").read_bytes()).hexdigest()
    return json.dumps(fields, sort_keys=True) + "\n"


def ready(item: Item, root: Path) -> Path | None:
    """The folder of `item` under `root` if it is fetched and matches the manifest."""
    folder = root / item.id
    try:
        if (folder / STAMP).read_text(encoding="utf-8") == stamp_of(item):
            return folder
    except OSError:
        pass
    return None


def clean_text(text: str, limit: int = 600) -> str:
    """Tool output made safe for a terminal: the last `limit` characters on one line,
    control characters escaped."""
    text = " | ".join(line.strip() for line in text.strip().splitlines() if line.strip())
    text = text[-limit:]
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def _run(argv: list[str], cwd: Path, what: str, client: str) -> str:
    """Run a registry client; raise FetchError (offline, hash or other) when it fails."""
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
    except FileNotFoundError:
        raise FetchError(f"{what}: {argv[0]} not found: install it and run scripts/fetch") from None
    except subprocess.TimeoutExpired:
        raise FetchError(
            f"{what}: the registry did not answer in {TIMEOUT} s (offline?): "
            "connect to the network and run scripts/fetch again"
        ) from None
    if proc.returncode != 0:
        out = proc.stderr + "\n" + proc.stdout
        tail = clean_text(out)
        if "DO NOT MATCH THE HASHES" in out:
            raise FetchError(f"{what}: the registry's file does not match the pinned sha256")
        if any(sign in out for sign in _OFFLINE_SIGNS):
            raise FetchError(
                f"{what}: could not reach the package registry (offline?): {tail}; "
                "connect to the network and run scripts/fetch again"
            )
        if "from versions: none" in out:
            raise FetchError(
                f"{what}: not on the package registry, or the registry could not be reached"
                f" (offline?): {tail}; check the pin, connect, and run scripts/fetch again"
            )
        raise FetchError(f"{what}: {client} failed (exit {proc.returncode}): {tail}")
    return proc.stdout


def _member_problem(member: tarfile.TarInfo) -> str | None:
    """Why `member` may not be unpacked, or None."""
    name = member.name
    parts = Path(name).parts
    if name.startswith(("/", "\\")) or (parts and ":" in parts[0]):
        return "an absolute path"
    if ".." in parts:
        return "a path leaving the target"
    if member.issym() or member.islnk():
        return f"a link (to {member.linkname!r})"
    if not (member.isfile() or member.isdir()):
        return "a device, fifo or other special file"
    return None


def safe_extract(archive: Path, dest: Path) -> None:
    """Unpack the tar archive `archive` into the new folder `dest`, without its single
    top-level folder. Raises UnsafeArchive, writing nothing, if any member is absolute,
    leaves the target, is a link, a device or another special file, or if the archive
    holds more than MAX_MEMBERS members or MAX_BYTES bytes."""
    try:
        with tarfile.open(archive, "r:*") as tar:
            _extract(tar, archive.name, dest)
    except (tarfile.TarError, EOFError, zlib_error) as exc:
        raise UnsafeArchive(f"{archive.name}: not a readable tar archive: {exc}") from None


def _chosen(name: str, patterns: tuple[str, ...]) -> bool:
    """Whether the member `name` matches one of `patterns` (fnmatch, `*` crosses `/`)."""
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def _extract(
    tar: tarfile.TarFile,
    label: str,
    dest: Path,
    *,
    tree: bool = False,
    select: tuple[str, ...] = (),
) -> None:
    """Unpack `tar` into `dest`. A source archive (`tree` false) must hold one top-level
    folder, which is stripped, and no links. A package's file tree (`tree` true) is
    unpacked as it is, and its symbolic and hard links are skipped, never followed or
    created: a link is no file of its own to read. With `select` (globs over the tree's
    paths, `usr/...`), only the files matching one are unpacked, and the bounds count
    those."""
    members = tar.getmembers()
    if select:
        members = [
            m for m in members if not m.isdir() and _chosen(m.name.removeprefix("./"), select)
        ]
    if len(members) > MAX_MEMBERS:
        raise UnsafeArchive(f"{label}: more than {MAX_MEMBERS} members")
    if sum(m.size for m in members) > MAX_BYTES:
        raise UnsafeArchive(f"{label}: more than {MAX_BYTES} bytes unpacked")
    tops = set()
    kept = []
    for m in members:
        if tree and (m.issym() or m.islnk()):
            continue
        problem = _member_problem(m)
        if problem:
            raise UnsafeArchive(f"{label}: member {m.name!r} is {problem}; refused")
        tops.add(Path(m.name).parts[0] if Path(m.name).parts else "")
        kept.append(m)
    if not tree and (len(tops) != 1 or "" in tops):
        raise UnsafeArchive(f"{label}: not one top-level folder ({sorted(tops)[:3]})")
    dest.mkdir(parents=True)
    target = dest.resolve()
    for m in kept:
        parts = Path(m.name).parts[0 if tree else 1 :]
        if not parts:
            continue
        out = (target / Path(*parts)).resolve()
        if target not in out.parents:
            raise UnsafeArchive(f"{label}: member {m.name!r} leaves the target")
        if m.isdir():
            out.mkdir(parents=True, exist_ok=True)
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        src = tar.extractfile(m)
        assert src is not None  # a regular file always has a body
        with src, open(out, "xb") as fh:
            shutil.copyfileobj(src, fh)
        os.chmod(out, 0o755 if m.mode & 0o111 else 0o644)


_S_IFMT, _S_IFREG, _S_IFLNK = 0o170000, 0o100000, 0o120000


def unzip_members(archive: Path, patterns: tuple[str, ...], dest: Path) -> int:
    """Unpack the members of the zip `archive` whose names match one of `patterns`
    (fnmatch, `*` crosses `/`) into the new folder `dest`, keeping their paths; return
    how many files were written. Symbolic links are skipped; a member that is absolute,
    leaves the target or is another special file is refused (UnsafeArchive), and so are
    more than MAX_MEMBERS chosen members or more than MAX_BYTES bytes written (counted
    as they are written, not as the archive declares them). Nothing is left in `dest`
    when it refuses."""
    try:
        with zipfile.ZipFile(archive) as zf:
            chosen = []
            for info in zf.infolist():
                if info.is_dir() or not _chosen(info.filename, patterns):
                    continue
                mode = (info.external_attr >> 16) & _S_IFMT
                if mode == _S_IFLNK:
                    continue
                parts = Path(info.filename.replace("\\", "/")).parts
                if info.filename.startswith(("/", "\\")) or (parts and ":" in parts[0]):
                    raise UnsafeArchive(f"{archive.name}: member {info.filename!r} is absolute")
                if ".." in parts:
                    raise UnsafeArchive(
                        f"{archive.name}: member {info.filename!r} leaves the target"
                    )
                if mode not in (0, _S_IFREG):
                    raise UnsafeArchive(
                        f"{archive.name}: member {info.filename!r} is a special file"
                    )
                chosen.append((info, parts))
            if len(chosen) > MAX_MEMBERS:
                raise UnsafeArchive(f"{archive.name}: more than {MAX_MEMBERS} members chosen")
            dest.mkdir(parents=True)
            target = dest.resolve()
            written = 0
            try:
                for info, parts in chosen:
                    out = (target / Path(*parts)).resolve()
                    if target not in out.parents:
                        raise UnsafeArchive(
                            f"{archive.name}: member {info.filename!r} leaves the target"
                        )
                    out.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(info) as src, open(out, "xb") as fh:
                        while chunk := src.read(1 << 16):
                            written += len(chunk)
                            if written > MAX_BYTES:
                                raise UnsafeArchive(
                                    f"{archive.name}: more than {MAX_BYTES} bytes unpacked"
                                )
                            fh.write(chunk)
            except BaseException:
                shutil.rmtree(dest, ignore_errors=True)
                raise
            return len(chosen)
    except (zipfile.BadZipFile, zlib_error, EOFError) as exc:
        raise UnsafeArchive(f"{archive.name}: not a readable zip archive: {exc}") from None


def _sha512_integrity(path: Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


#: The index pip asks when nothing configures another (pip's own default).
PYPI_SIMPLE = "https://pypi.org/simple"
#: A PEP 691 index page (the JSON form of the simple API).
_SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
_SAFE_FILENAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*\.(?:tar\.gz|zip)")
#: Seconds to wait on the index before pip is asked instead.
INDEX_TIMEOUT = 60


@cache
def pip_index() -> tuple[str | None, str | None]:
    """(the index URL, the CA bundle) pip would use, when that is certain from `pip
    config list` (which folds in PIP_* variables and PIP_CONFIG_FILE): the index of
    PIP_INDEX_URL, else PyPI where no configuration file names one. The URL is None
    where a file names one (pip's own order among its files decides which: pip is
    asked then), where pip is told to use no index, or where its configuration cannot
    be read. The bundle is PIP_CERT's, else None (the system's own; a wrong guess only
    costs the direct read, as pip is asked next)."""
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "config", "list"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None, None
    if proc.returncode != 0:
        return None, None
    found: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            found[key.strip()] = value.strip().strip("'\"")
    cert = found.get(":env:.cert")
    if any(k.endswith(".no-index") for k in found):
        return None, cert
    if ":env:.index-url" in found:
        return found[":env:.index-url"], cert
    if any(k.endswith(".index-url") for k in found):
        return None, cert
    return PYPI_SIMPLE, cert


def _project_key(name: str) -> str:
    """The normalised project name of an index page's address (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


#: The index could not be reached this run: the direct read is not tried again.
_INDEX_DOWN: list[bool] = []


def _sdist_from_index(item: Item, dest: Path) -> Path | None:
    """The pinned sdist read straight from pip's index into `dest`: one page and one
    file, no build environment. None (and nothing kept in `dest`) whenever this read
    is not certain to give the pinned bytes: the index not known for certain, not
    HTTP(S), unreachable, slow, serving no JSON page, listing no single file with the
    pinned hash, or sending other or fewer bytes. pip is asked then, and says why."""
    index, cert = pip_index()
    if not index or _INDEX_DOWN or urllib.parse.urlsplit(index).scheme not in {"https", "http"}:
        return None
    page = index.rstrip("/") + "/" + _project_key(item.name) + "/"
    start = time.monotonic()
    try:
        context = ssl.create_default_context(cafile=cert) if cert else None
        request = urllib.request.Request(page, headers={"Accept": _SIMPLE_JSON})
        try:
            resp = urllib.request.urlopen(request, timeout=INDEX_TIMEOUT, context=context)
        except (urllib.error.URLError, TimeoutError, ConnectionError):
            _INDEX_DOWN.append(True)
            return None
        with resp:
            if not resp.headers.get("Content-Type", "").startswith(_SIMPLE_JSON):
                return None
            listing = json.loads(resp.read(MAX_BYTES))
            base = resp.geturl()
        files = listing.get("files") if isinstance(listing, dict) else None
        chosen = [
            f
            for f in (files if isinstance(files, list) else [])
            if isinstance(f, dict)
            and isinstance(f.get("hashes"), dict)
            and f["hashes"].get("sha256") == item.sha256
            and isinstance(f.get("filename"), str)
            and _SAFE_FILENAME.fullmatch(f["filename"])
            and isinstance(f.get("url"), str)
        ]
        if len(chosen) != 1:
            return None
        url = urllib.parse.urljoin(base, chosen[0]["url"])
        if urllib.parse.urlsplit(url).scheme not in {"https", "http"}:
            return None
        target = dest / chosen[0]["filename"]
        digest = hashlib.sha256()
        size = 0
        with (
            urllib.request.urlopen(url, timeout=INDEX_TIMEOUT, context=context) as resp,
            open(target, "xb") as out,
        ):
            expected = resp.headers.get("Content-Length")
            while block := resp.read(1 << 20):
                size += len(block)
                if size > MAX_BYTES or time.monotonic() - start > INDEX_TIMEOUT:
                    raise TimeoutError("over the bound of one direct read")
                digest.update(block)
                out.write(block)
        if (expected is not None and expected.isdigit() and int(expected) != size) or (
            digest.hexdigest() != item.sha256
        ):
            raise ValueError("not the pinned bytes")
    except Exception:  # noqa: BLE001 - any doubt: nothing kept, pip is asked and says why
        for left in dest.iterdir():
            left.unlink()
        return None
    return target


def _sdist_with_pip(item: Item, dest: Path) -> Path:
    """`pip download` the pinned sdist into `dest` (pip checks the hash before it
    prepares anything, in a build environment of its own)."""
    req = dest / "requirements.txt"
    req.write_text(f"{item.name}=={item.version} --hash=sha256:{item.sha256}\n")
    argv = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check"]
    argv += ["--no-deps", "--no-binary", item.name, "--require-hashes", "-r", str(req)]
    _run([*argv, "--dest", str(dest)], dest, f"{item.id} ({item.name}=={item.version})", "pip")
    archives = [p for p in dest.iterdir() if p.name != req.name]
    if len(archives) != 1:
        raise FetchError(f"{item.id}: the downloaded sdist does not match the pinned sha256")
    return archives[0]


def _pypi_sdist(item: Item, staging: Path) -> None:
    """The pinned sdist (from the index directly, else through pip), its hash checked
    again, unpacked into staging/src."""
    dl = staging / ".download"
    dl.mkdir()
    archive = _sdist_from_index(item, dl) or _sdist_with_pip(item, dl)
    if hashlib.sha256(archive.read_bytes()).hexdigest() != item.sha256:
        raise FetchError(f"{item.id}: the downloaded sdist does not match the pinned sha256")
    safe_extract(archive, staging / "src")
    shutil.rmtree(dl)


#: The package lists were read by this fetch (its threads share one `apt-get update`).
_LISTS_LOCK = threading.Lock()
_LISTS_READ: list[bool] = []
#: Tries, and seconds between them, of `apt-get update`: the lists' lock cannot be
#: waited on, and ./run's own install may hold it.
LISTS_TRIES = 6
LISTS_WAIT = 5.0


def _read_package_lists(cwd: Path, what: str) -> None:
    """`apt-get update`, once per process whichever thread asks first; a lock held by
    another apt run is tried again a few times before the error is raised."""
    with _LISTS_LOCK:
        if _LISTS_READ:
            return
        for attempt in range(1, LISTS_TRIES + 1):
            try:
                _run(["apt-get", "update", "-qq"], cwd, what, "apt-get")
                break
            except FetchError as exc:
                # Only a lock another apt run holds is worth waiting for.
                if attempt == LISTS_TRIES or "Could not get lock" not in str(exc):
                    raise
                time.sleep(LISTS_WAIT)
        _LISTS_READ.append(True)


def _debian_deb(item: Item, staging: Path) -> None:
    """`apt-get download NAME=VERSION` (apt checks the archive's signed index), check the
    pinned sha256, and unpack the package's file tree into staging/root with the same
    refusals as a source archive (absolute paths, escapes, devices; links are skipped).
    No maintainer script runs: the file tree is read with `dpkg-deb --fsys-tarfile`.
    `members` chooses which files of the tree are unpacked; with `unzip`, which members of
    that zip inside the tree go to staging/unzip."""
    dl = staging / ".download"
    dl.mkdir()
    what = f"{item.id} ({item.name}={item.version})"
    download = ["apt-get", "download", "-q", f"{item.name}={item.version}"]
    try:
        _run(download, dl, what, "apt-get")
    except FetchError:
        # A fresh machine may have no package lists yet: as root, read them once (as
        # ./run setup does before an install) and ask again; anyone else gets the error.
        if not (hasattr(os, "geteuid") and os.geteuid() == 0):
            raise
        _read_package_lists(dl, what)
        _run(download, dl, what, "apt-get")
    debs = list(dl.glob("*.deb"))
    if len(debs) != 1 or hashlib.sha256(debs[0].read_bytes()).hexdigest() != item.sha256:
        raise FetchError(f"{item.id}: the downloaded package does not match the pinned sha256")
    data = dl / "data.tar"
    with open(data, "xb") as fh:
        try:
            proc = subprocess.run(
                ["dpkg-deb", "--fsys-tarfile", str(debs[0])],
                stdout=fh,
                stderr=subprocess.PIPE,
                timeout=TIMEOUT,
                check=False,
            )
        except FileNotFoundError:
            raise FetchError(f"{what}: dpkg-deb not found: install dpkg") from None
    if proc.returncode != 0:
        raise FetchError(
            f"{what}: dpkg-deb failed: {clean_text(proc.stderr.decode(errors='replace'))}"
        )
    try:
        with tarfile.open(data, "r:") as tar:
            select = () if item.unzip else item.members
            _extract(tar, debs[0].name, staging / "root", tree=True, select=select)
    except (tarfile.TarError, EOFError) as exc:
        raise UnsafeArchive(f"{debs[0].name}: not a readable package: {exc}") from None
    shutil.rmtree(dl)
    if item.unzip:
        archive = staging / "root" / item.unzip
        if not archive.is_file():
            raise FetchError(f"{what}: the package has no file {item.unzip}")
        if not unzip_members(archive, item.members, staging / "unzip"):
            raise FetchError(f"{what}: no member of {item.unzip} matches {list(item.members)}")
        archive.unlink()  # the members it was fetched for are beside it


def _npm(root: Path) -> list[str]:
    npm = shutil.which("npm")
    if not npm:
        raise FetchError("npm not found: install Node.js with npm, then run scripts/fetch")
    return [npm, "--cache", str(root / ".npm"), "--no-audit", "--no-fund", "--loglevel=error"]


def _npm_package(item: Item, staging: Path, root: Path) -> None:
    """`npm pack` the pinned tarball, check its integrity, unpack it into staging/src."""
    dl = staging / ".download"
    dl.mkdir()
    spec = f"{item.name}@{item.version}"
    argv = [*_npm(root), "pack", spec, "--ignore-scripts", "--json", "--pack-destination", "."]
    _run(argv, dl, f"{item.id} ({spec})", "npm pack")
    archives = list(dl.glob("*.tgz"))
    if len(archives) != 1 or _sha512_integrity(archives[0]) != item.integrity:
        raise FetchError(f"{item.id}: the downloaded tarball does not match the pinned integrity")
    safe_extract(archives[0], staging / "src")
    shutil.rmtree(dl)


def _npm_lock(item: Item, staging: Path, root: Path) -> None:
    """`npm ci --ignore-scripts` of the item's lock folder into staging/node_modules."""
    lock = item.lock_dir()
    assert lock is not None
    work = staging / ".install"
    work.mkdir()
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(lock / name, work / name)
    _run([*_npm(root), "ci", "--ignore-scripts"], work, f"{item.id} ({item.lock})", "npm ci")
    (work / "node_modules").rename(staging / "node_modules")
    shutil.rmtree(work)


@contextlib.contextmanager
def _locked(root: Path, item_id: str) -> Iterator[None]:
    with open(root / f".lock-{item_id}", "a+b") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def fetch(item: Item, root: Path) -> tuple[Path, bool]:
    """Make `item` present under `root`: (its folder, whether it was fetched now).

    Idempotent: an item whose stamp matches is left alone. Otherwise it is built in a
    staging folder beside it and renamed into place only when whole; a failure leaves
    the previous state (and no staging folder) behind and raises FetchError.
    """
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root, item.id):
        found = ready(item, root)
        if found:
            return found, False
        for left in [*root.glob(f".staging-{item.id}.*"), *root.glob(f".old-{item.id}.*")]:
            shutil.rmtree(left, ignore_errors=True)  # from a run that was killed
        staging = Path(tempfile.mkdtemp(prefix=f".staging-{item.id}.", dir=root))
        try:
            if item.kind == "pypi-sdist":
                _pypi_sdist(item, staging)
            elif item.kind == "npm-package":
                _npm_package(item, staging, root)
            elif item.kind == "debian-deb":
                _debian_deb(item, staging)
            if item.lock:
                _npm_lock(item, staging, root)
            (staging / STAMP).write_text(stamp_of(item), encoding="utf-8")
            final = root / item.id
            if final.exists():
                old = Path(tempfile.mkdtemp(prefix=f".old-{item.id}.", dir=root))
                final.rename(old / item.id)
                staging.rename(final)
                shutil.rmtree(old, ignore_errors=True)
            else:
                staging.rename(final)
            return final, True
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def main(argv: list[str] | None = None, say: Callable[[str], None] | None = None) -> int:
    """The scripts/fetch command: fetch every item (or `--only ID`...); 0 when all are
    present, 1 when any failed (each failure named), 2 on a usage or manifest error."""
    import argparse

    def _say(msg: str) -> None:
        print(f"[fetch] {msg}", file=sys.stderr, flush=True)

    say = say or _say
    parser = argparse.ArgumentParser(prog="scripts/fetch", description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="ID", help="fetch only this item")
    parser.add_argument(
        "--group", metavar="GROUP", help=f"fetch this opt-in group (default: {DEFAULT_GROUP})"
    )
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help=argparse.SUPPRESS)
    parser.add_argument("--list", action="store_true", help="print each item and its folder")
    args = parser.parse_args(argv)
    try:
        items = load_manifest(args.manifest)
    except (FetchError, OSError, tomllib.TOMLDecodeError) as exc:
        say(f"manifest: {exc}")
        return 2
    unknown = sorted(set(args.only or ()) - set(items))
    if unknown:
        say(f"unknown item(s): {', '.join(unknown)} (known: {', '.join(items)})")
        return 2
    root = cache_root()
    group = args.group or DEFAULT_GROUP
    chosen = (
        [items[i] for i in args.only]
        if args.only
        else [i for i in items.values() if i.group == group]
    )
    if args.list:
        for item in chosen:
            state = "present" if ready(item, root) else "missing"
            print(f"{item.id}\t{item.kind}\t{state}\t{root / item.id}")
        return 0

    def one(item: Item) -> bool:
        start = time.monotonic()
        try:
            folder, fetched = fetch(item, root)
        except FetchError as exc:
            say(f"FAILED {exc}")
            return False
        took = f"fetched in {time.monotonic() - start:.1f} s" if fetched else "present"
        say(f"{item.id}: {took} ({folder})")
        return True

    # The clients wait on the network most of the time: a few items at once. An item
    # with a lock (an `npm ci` of up to 270 packages) takes longest: those start first,
    # so the last item started is never the one the whole fetch waits on.
    chosen.sort(key=lambda item: not item.lock)
    with ThreadPoolExecutor(max_workers=3) as pool:
        failed = sum(not ok for ok in pool.map(one, chosen))
    if failed:
        say(f"{failed} of {len(chosen)} item(s) missing; the tests that need them will fail")
    return 1 if failed else 0
