"""Presenters for the command line: one module per group of subcommands."""
