"""Delivery-gate helpers: the legacy-v1 protocol, skip audit, installed git hooks."""
