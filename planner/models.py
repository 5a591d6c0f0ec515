"""Planner models (saved designs, export jobs, calibrations) arrive with issues 4, 6 and 7."""
