"""orchestrate: honest answers about whether code is fit to save, commit, push and ship."""

__version__ = "0.1.0"
