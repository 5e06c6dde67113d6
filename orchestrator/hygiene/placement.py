"""Where a file stands for hygiene: managed by the rulebook, a published page, generated.

The scope rule of the rulebook (`rulebook.DedupeScope`, id `dedupe-scope`) is data; this
module reads it for one tree and answers, per path, the three questions the scan, the
tier derivation and the apply engine ask:

- *managed*: a rule of the `temporary` or `delete-once-served` family owns the file
  (notes, plans, scratch, leftovers): hygiene may fold its copies together;
- *published*: the file is a page read on its own (site sources, docs folders,
  community-health files), whether or not a managed rule owns it;
- *generated*: the file says so (model/generated.py, the one decision shared with lint).

`kept_in` names where a dedupe keeps its copy: `same-file`, `hygiene-managed` (both
files managed) or `other-document`. Only the first two may ever derive to auto.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Literal

import pathspec

from orchestrator.hygiene import content
from orchestrator.hygiene.rulebook import HygieneConfig
from orchestrator.model import generated as gen

KeptIn = Literal["same-file", "hygiene-managed", "other-document"]
MANAGED_LIFETIMES = ("temporary", "delete-once-served")


class Placement:
    """The scope rule applied to the tree at `root` (file heads are read on demand)."""

    def __init__(self, root: Path, cfg: HygieneConfig) -> None:
        self.root = root
        self.rule_id = cfg.dedupe_scope.id
        self._published = pathspec.GitIgnoreSpec.from_lines(cfg.dedupe_scope.published_globs)
        # Case-blind too: `readme.md`, `Docs/` and `.GitHub/` are the same pages to a
        # reader (GitHub, case-insensitive file systems); more published is the safe side.
        self._published_folded = pathspec.GitIgnoreSpec.from_lines(
            [g.lower() for g in cfg.dedupe_scope.published_globs]
        )
        self._repeats = pathspec.GitIgnoreSpec.from_lines(cfg.dedupe_scope.repeats_by_design)
        self._file_rules = [
            (r.id, pathspec.GitIgnoreSpec.from_lines(r.globs))
            for r in cfg.rules
            if r.lifetime in MANAGED_LIFETIMES and r.type == "file"
        ]
        self._dir_rules = [
            (r.id, pathspec.GitIgnoreSpec.from_lines(r.globs))
            for r in cfg.rules
            if r.lifetime in MANAGED_LIFETIMES and r.type == "directory"
        ]
        # A regular file only, bounded: a FIFO named .gitattributes must not block.
        self._attrs = gen.parse_gitattributes(
            content.read_head(root / gen.GITATTRIBUTES, 1024 * 1024)
        )
        self._heads: dict[str, bytes] = {}

    def managed(self, rel: str) -> str | None:
        """The id of the temporary / delete-once-served rule that owns `rel`, or None."""
        parts = rel.split("/")
        for i in range(1, len(parts)):
            folder = "/".join(parts[:i])
            for rule_id, spec in self._dir_rules:
                if spec.match_file(folder + "/") or spec.match_file(folder):
                    return rule_id
        for rule_id, spec in self._file_rules:
            if spec.match_file(rel):
                return rule_id
        return None

    def repeats_by_design(self, rel: str) -> bool:
        """Whether `rel` repeats text on purpose (release notes): no dedupe in it."""
        return self._repeats.match_file(rel)

    def is_managed(self, rel: str) -> bool:
        """Whether a temporary / delete-once-served rule owns `rel`."""
        return self.managed(rel) is not None

    def published(self, rel: str) -> bool:
        """Whether `rel` is a page read on its own; the published globs match in any
        letter case. A managed rule owning it does not unpublish it (`docs/notes/x.md`
        is still a page of the site): its copies are then folded only when asked."""
        return self._published.match_file(rel) or self._published_folded.match_file(rel.lower())

    def _head(self, rel: str) -> bytes:
        if rel not in self._heads:
            self._heads[rel] = content.read_head(self.root / rel, gen.HEAD)
        return self._heads[rel]

    def generated(self, rel: str, head: bytes | None = None) -> str | None:
        """Why `rel` is generated (model/generated.generated_reason), or None."""
        return gen.generated_reason(rel, self._head(rel) if head is None else head, self._attrs)

    def source_of(self, rel: str) -> str | None:
        """The existing project file a generated `rel` names as its source, or None."""
        named = gen.generated_source(rel, self._head(rel))
        if named is None:
            return None
        norm = posixpath.normpath(named)
        if norm.startswith("..") or posixpath.isabs(norm) or norm == ".":
            return None
        return norm if (self.root / norm).is_file() else None

    def kept_in(self, path: str, kept_path: str) -> KeptIn:
        """Where a dedupe that removes a span of `path` keeps its copy (`kept_path`)."""
        if path == kept_path:
            return "same-file"
        if self.managed(path) is not None and self.managed(kept_path) is not None:
            return "hygiene-managed"
        return "other-document"

    def touches_published(self, *rels: str) -> bool:
        """Whether any of the files is a published page or generated."""
        return any(self.published(r) or self.generated(r) is not None for r in rels)
