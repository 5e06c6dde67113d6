"""The shell analyser: what a shell command would commit or push, read from its syntax.

Pure (no git, no I/O, no execution). The entry point is `orchestrator.shell.analyser`
(`analyse`, `describe`, `Analysis`, `Reason`); its records sit at the bottom in
`orchestrator.shell.records`.
"""
