"""Tasks: the store, re-verification, events and the next-step summary."""
