"""Everything orchestrate asks git: one bounded runner, the root, listings, surfaces."""
