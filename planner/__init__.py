"""The planner: designs, their evaluation (engine + services), tasks."""
