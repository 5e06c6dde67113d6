"""Fallback grammar manifest and the corpus that qualifies each grammar."""
