"""./run: the set-up's pins agree with the project's own."""

from __future__ import annotations

import re
import tomllib

from helpers import REPO


def test_the_installer_pin_is_the_test_extras_uv() -> None:
    """./run installs the venv through the uv that pyproject.toml's test extra pins (the
    wheel tests' `uv tool install`): one version, so the set-up installs nothing twice."""
    run = (REPO / "run").read_text(encoding="utf-8")
    (pin,) = re.findall(r'^UV_PIN="([^"]+)"$', run, flags=re.MULTILINE)
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    test_extra = extras["project"]["optional-dependencies"]["test"]
    assert pin in test_extra, (pin, [d for d in test_extra if d.startswith("uv")])
    assert '"$VENV/bin/uv" pip install' in run
