"""The one fatal-error family; the CLI maps these to exit codes in one place."""

from __future__ import annotations

from orchestrator.vocab import ExitCode


class OrchestrateError(Exception):
    """A fatal error that ends a command with a diagnostic line and an exit code."""

    exit_code: int = ExitCode.INTERNAL


class UsageError(OrchestrateError):
    """The request itself is wrong (unknown path form, bad config, bad flag)."""

    exit_code = ExitCode.USAGE
