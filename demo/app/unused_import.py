"""A module with an unused import: Ruff finds it and offers a safe fix."""

import os


def greet(name: str) -> str:
    return f"hello {name}"
