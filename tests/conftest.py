"""Fixtures for tests/ (helpers live in tests/helpers.py)."""

from helpers import git_repo, write_files  # noqa: F401 - re-exported fixtures
