"""The records everything shares: the report model, edits, the checker protocol and its
outcomes, language detection. Imports nothing but the foundation."""
