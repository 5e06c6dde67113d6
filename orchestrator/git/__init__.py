"""Everything orchestrate asks git, and the only place git runs.

- `runner`: `Git`, the one bounded runner (literal argv, one deadline, output budget,
  the pinned environment) and `GitError`.
- `repo`: which repository (`find_repo`, `open_repo`, `in_work_tree`), config values,
  the hooks folder.
- `listing`: the one ``ls-files -z`` reader and the one ``status --porcelain=v1 -z``
  parser.
- `objects`: index and tree entries, changed paths, blob bytes.
- `history`: commit ranges, the blobs each commit adds, what git's own fetches and
  pushes recorded in a remote-tracking ref.
- `surfaces`: what a commit or a ci run checks; `push`: what a push delivers.
- `grammar`: git's command-line grammar (global options; `commit`, `push`, `add`
  options), the one table every reader of a git command line uses; it runs nothing.

Nothing here imports presenters, gates, tasks or hygiene. The surfaces fill core
records (`FileTarget`, refused `Scope` rows), so `surfaces`, `objects` and `push`
depend on `orchestrator.core`; the runner, the root finder and the listings do not.
"""
