"""The use cases: one function per thing a user asks for, each returning a result record.

Presenters (cli/, hosts/, the git hooks) parse a request, call one of these, render
the result and return the exit code decisions/exits.py gives. A presenter never
changes a report; the policy around the core (required gaps, notes, task sync,
gate evaluation, legacy skips) lives here.
"""
