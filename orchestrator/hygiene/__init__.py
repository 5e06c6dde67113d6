"""Repository hygiene: `orchestrate check` and `orchestrate clean`."""
