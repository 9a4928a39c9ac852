"""Cluster algorithms (local recoding)."""
