"""Partition algorithms (local recoding)."""
