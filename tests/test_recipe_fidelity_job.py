"""The slow recipe fidelity cases' stored result is of the code as it is now.

bench/recipe_fidelity.py runs the `corpus_job` cases of tests/test_recipe_fidelity.py
(the tool twice over hundreds of real files: not in `.ci/run`) and stores which passed
under a key of every file they depend on. These fast checks fail when that key is not
the current one, or when the stored cases are not exactly the marked ones.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import REPO, load_module

import tests.test_recipe_fidelity as fidelity

job = load_module(REPO / "bench/recipe_fidelity.py", "recipe_fidelity_job")
CASE = "tests/test_recipe_fidelity.py::test_a_builtin_recipe_equals_its_tool_run_directly_on_a_real_project"
SCSS = "tests/test_recipe_fidelity.py::test_stylelint_on_scss_sources_under_postcss_scss_equals_the_project_s_own_stylelint"


def test_the_slow_cases_passed_on_the_files_they_depend_on_as_they_are_now() -> None:
    stored = json.loads(job.RESULTS.read_text(encoding="utf-8"))
    assert stored["key"] == job.key(), (
        "a file the slow recipe fidelity cases depend on changed since they last ran: "
        "run `python bench/recipe_fidelity.py --write` (after scripts/fetch)"
    )
    marked = {f"{CASE}[{name}]" for name in fidelity.JOB} | {SCSS}
    assert set(stored["passed"]) == marked


def test_the_key_reads_every_file_it_names_and_changes_with_each(tmp_path: Path) -> None:
    """Each glob of the key matches a file of the checkout; a changed byte, a new file
    and a removed file each give another key."""
    for pattern in job.KEY_GLOBS:
        assert list(REPO.glob(pattern)), pattern
    (tmp_path / "plugins" / "recipes").mkdir(parents=True)
    recipe = tmp_path / "plugins" / "recipes" / "a.toml"
    recipe.write_text("name = 'a'\n")
    first = job.key(tmp_path)
    recipe.write_text("name = 'b'\n")
    second = job.key(tmp_path)
    (tmp_path / "plugins" / "recipes" / "c.toml").write_text("")
    third = job.key(tmp_path)
    recipe.unlink()
    fourth = job.key(tmp_path)
    assert len({first, second, third, fourth}) == 4
    (tmp_path / "plugins" / "recipes" / "unrelated.txt").write_text("x")
    assert job.key(tmp_path) == fourth
