"""Agent host adapters and the host-neutral event router."""
