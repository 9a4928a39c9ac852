"""Bucket algorithms (local recoding)."""
