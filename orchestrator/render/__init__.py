"""Report formats: human, SARIF, JSON."""
