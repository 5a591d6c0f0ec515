"""api app."""
