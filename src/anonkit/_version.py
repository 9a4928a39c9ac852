"""anonkit's version, written once (``pyproject.toml`` holds the same; a test holds them equal)."""

__version__ = "0.1.0"
