"""The engines' defaults, written once (their modules and the config import them from here)."""

#: Mondrian on Spark: partitions are cut on Spark until each holds at most this many records
DEFAULT_PARTITION_ROWS = 1_000_000

__all__ = ["DEFAULT_PARTITION_ROWS"]
