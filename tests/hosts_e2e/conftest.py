"""Fixtures for the real-host end-to-end tests: a git project, a private HOME, a CLI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .harness import Session, new_session

HERE = Path(__file__).parent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "hosts_e2e: runs a real agent host CLI offline against a scripted model"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.hosts_e2e)


SessionFactory = Callable[..., Session]


@pytest.fixture
def make_session(tmp_path: Path) -> SessionFactory:
    """Build a Session for a host in tmp_path: a real git repository with one commit, a
    private HOME, the located CLI, and our shipped hook configuration (or `hooks_config`)."""

    def factory(host_name: str, hooks_config: dict[str, Any] | None = None) -> Session:
        return new_session(host_name, tmp_path, hooks_config)

    return factory
