"""`orchestrate trust`: the user vouches for the project's recipes (core/trust.py).

`trust_recipes` reads every recipe the project's config names, validates it as `lint`
would (the recipe format, the project recipe rules, no name clash with a loaded
checker) and records its digest for the project's root; `recipe_states` says, per
recipe, whether `lint` runs it; `revoke_recipes` forgets them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from orchestrator.checkers import project_recipes
from orchestrator.core import plugin_host, trust
from orchestrator.core.config import load_config
from orchestrator.core.engine import taken_names


@dataclass(frozen=True)
class RecipeState:
    """One project recipe: its name, its path, its digest now and whether it is trusted
    ("trusted", "changed since trusted", "not trusted")."""

    name: str
    path: str
    digest: str
    state: str


def _current(root: Path) -> list[tuple[str, str, str]]:
    """(name, path, digest) of every recipe the config names, each validated; UsageError
    for the first that is not a valid project recipe or clashes with a loaded checker."""
    config = load_config(root)
    paths = list(config.get("recipes", []) or [])
    taken = taken_names(plugin_host.load(block=tuple(config.get("disable_plugins", []) or ())))
    got = project_recipes.worktree_recipes(root, config, taken)
    out = []
    for path, checker in zip(paths, got.checkers, strict=True):
        data = (root / path).read_bytes()
        out.append((checker.name, path, trust.recipe_digest(path, data, paths)))
    return out


def recipe_states(root: Path) -> list[RecipeState]:
    """Each recipe the project names and whether `lint` runs it (its digest trusted)."""
    known = trust.trusted(root)
    out = []
    for name, path, digest in _current(root):
        if known.get(path) == digest:
            state = "trusted"
        elif path in known:
            state = "changed since trusted"
        else:
            state = "not trusted"
        out.append(RecipeState(name, path, digest, state))
    return out


def trust_recipes(root: Path) -> list[RecipeState]:
    """Trust exactly the recipes the project names now (their digests, core/trust.py);
    a recipe trusted before that the config no longer names is forgotten."""
    current = _current(root)
    trust.record(root, {path: digest for _name, path, digest in current})
    return [RecipeState(n, p, d, "trusted") for n, p, d in current]


def revoke_recipes(root: Path) -> list[str]:
    """Forget every recipe trusted in the project; the paths that were trusted."""
    return sorted(trust.revoke(root))


def store_location() -> Path:
    """Where the trust is recorded (the user's data folder)."""
    return trust.store_path()


__all__ = ["RecipeState", "recipe_states", "revoke_recipes", "store_location", "trust_recipes"]
