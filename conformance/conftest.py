"""Fixtures for conformance/ (helpers live in tests/helpers.py)."""

from helpers import git_repo, machine_tools_reset, write_files  # noqa: F401 - re-exported fixtures
