"""Plugin discovery remembers the `orchestrate` entry points while the installed
distributions stay the same (core/entry_points.py), and searches again as soon as one
is installed, edited or removed. A real distribution folder on sys.path; the only fake
is a search that must not run (fault injection)."""

from __future__ import annotations

import json
import sys
from importlib import metadata
from pathlib import Path

import pytest

from orchestrator.core import plugin_host


def _install(site: Path, names: list[str], version: str = "1.0") -> Path:
    dist = site / f"fakeplug-{version}.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: fakeplug\nVersion: {version}\n")
    lines = "".join(f"{n} = fakeplug_mod\n" for n in names)
    (dist / "entry_points.txt").write_text(f"[orchestrate]\n{lines}")
    (site / "fakeplug_mod.py").write_text("def orchestrate_checkers():\n    return []\n")
    return dist


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    return site


def _found(fresh: bool = False) -> dict[str, tuple[str | None, str | None, str]]:
    """A discovery as a new process makes it (this process's last search forgotten)."""
    plugin_host.forget_searched()
    return _kept(fresh)


def _kept(fresh: bool = False) -> dict[str, tuple[str | None, str | None, str]]:
    """A discovery in this process as it is (its last search kept)."""
    return {f.name: (f.dist, f.version, ep.value) for f, ep in plugin_host.discover(fresh)}


def _no_search(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_entry_points(**_kw: object) -> object:
        raise AssertionError("searched the installed distributions again")

    monkeypatch.setattr(metadata, "entry_points", fake_entry_points)


def _cache_files(site: Path) -> list[Path]:
    return sorted((site.parent / "cache").rglob("entry-points-*.json"))


def test_an_unchanged_installation_is_not_searched_again(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _install(site, ["fakeplug"])
    first = _found()
    assert first["fakeplug"] == ("fakeplug", "1.0", "fakeplug_mod")
    assert "ruff" in first
    _no_search(monkeypatch)
    assert _found() == first
    plugin_host.forget_searched()
    loaded = plugin_host.load()
    assert "fakeplug" in [p.name for p in loaded.loaded]
    assert ("fakeplug", "fakeplug", "1.0") in [(p.name, p.dist, p.version) for p in loaded.loaded]


def test_an_edited_installed_or_removed_distribution_is_searched_again(site: Path) -> None:
    dist = _install(site, ["fakeplug"])
    assert "fakeplug" in _found()
    _install(site, ["fakeplug", "fakeplug2"])  # entry_points.txt edited in place
    assert {"fakeplug", "fakeplug2"} <= set(_found())
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fakeplug\nVersion: 1.10\n")
    assert _found()["fakeplug"][1] == "1.10"
    for f in dist.iterdir():
        f.unlink()
    dist.rmdir()
    assert not {"fakeplug", "fakeplug2"} & set(_found())
    _install(site, ["fakeplug3"], version="2.0")  # a new distribution folder
    assert _found()["fakeplug3"] == ("fakeplug", "2.0", "fakeplug_mod")


@pytest.mark.parametrize(
    "damage",
    [b"", b"{not json", b"[]", b'{"key": 1}', None],
    ids=["empty", "garbage", "list", "other-key", "bad-rows"],
)
def test_a_damaged_cache_is_a_miss(site: Path, damage: bytes | None) -> None:
    _install(site, ["fakeplug"])
    first = _found()
    (cache,) = _cache_files(site)
    if damage is None:
        data = json.loads(cache.read_bytes())
        data["groups"]["orchestrate"] = [["fakeplug", 7, None, None]]
        damage = json.dumps(data).encode()
    cache.write_bytes(damage)
    assert _found() == first


def test_a_finder_the_key_cannot_see_turns_the_cache_off(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class OtherFinder:
        """A meta-path finder that also finds distributions (as a zip importer could)."""

        def find_spec(self, *_a: object) -> None:
            return None

        def find_distributions(self, *_a: object) -> list[object]:
            return []

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, OtherFinder()])
    _install(site, ["fakeplug"])
    assert "fakeplug" in _found()
    assert _cache_files(site) == []


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the searches of the installed distributions (the real search runs)."""
    calls: list[int] = []
    real = metadata.entry_points

    def counting(**kw: object) -> object:
        calls.append(1)
        return real(**kw)  # type: ignore[arg-type]

    monkeypatch.setattr(metadata, "entry_points", counting)
    return calls


def test_a_process_keeps_its_own_search_for_strict_discoveries(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dist = _install(site, ["fakeplug"])
    searches = _counted(monkeypatch)
    first = _found(fresh=True)
    assert "fakeplug" in first and len(searches) == 1
    assert _kept(fresh=True) == first and _kept() == first
    assert len(searches) == 1  # kept in memory: no second search, strict or not
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fakeplug\nVersion: 1.10\n")
    assert _kept(fresh=True)["fakeplug"][1] == "1.10"  # the installation changed: searched
    assert len(searches) == 2


def test_the_cache_file_never_reaches_a_strict_discovery(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a process read from the cache file (anything running as the user can write
    it) is not kept as its search: a strict discovery after it still searches."""
    _install(site, ["fakeplug"])
    first = _found()
    (cache,) = _cache_files(site)
    data = json.loads(cache.read_bytes())
    data["groups"]["orchestrate"].append(["planted", "planted_mod", None, None])
    cache.write_bytes(json.dumps(data).encode())
    assert "planted" in _found()  # a plain discovery trusts the file
    searches = _counted(monkeypatch)
    assert _kept(fresh=True) == first and len(searches) == 1
    assert "planted" not in _kept()  # now this process's own search answers


def test_a_search_reads_each_distributions_metadata_once(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three entry points of one distribution: its name and version for each, from one
    parse of its metadata (each parse reads the whole file, long description too)."""
    _install(site, ["fakeplug", "fakeplug2", "fakeplug3"], version="2.5")
    parsed: list[str] = []
    prop = metadata.Distribution.metadata

    def counting(self: metadata.Distribution) -> object:
        meta = prop.fget(self)  # type: ignore[misc]
        parsed.append(meta["Name"])
        return meta

    monkeypatch.setattr(metadata.Distribution, "metadata", property(counting))
    found = _found(fresh=True)
    for name in ("fakeplug", "fakeplug2", "fakeplug3"):
        assert found[name] == ("fakeplug", "2.5", "fakeplug_mod")
    assert parsed.count("fakeplug") == 1
    assert len(parsed) == len(set(parsed)), parsed  # orchestrate's own: once too
