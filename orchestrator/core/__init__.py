"""The core flow: selection, planning, running, the report model, reuse, plugins."""
