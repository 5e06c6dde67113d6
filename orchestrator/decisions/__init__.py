"""Every decision in one place: finding predicates, coverage, gate policy, exit codes."""
