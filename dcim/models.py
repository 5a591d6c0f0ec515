"""DCIM connections and pushes (see dcim/push.py)."""
