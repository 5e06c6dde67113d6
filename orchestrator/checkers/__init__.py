"""What a checker plugin builds on: tool lookup, version probes, config digests, and the
`CommandChecker` base for a checker that runs one command-line tool.

Public through `orchestrator.api` only (plugins import nothing else); the modules here
may move between releases, the names `orchestrator.api` re-exports do not.
"""
