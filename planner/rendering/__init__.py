"""Presentation renderers that need no database: rack elevation SVG (page and PDF share it)."""
