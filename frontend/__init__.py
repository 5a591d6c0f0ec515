"""frontend app."""
