"""anonkit: privacy-preserving publishing of microdata.

The public surface::

    from anonkit import Schema, Hierarchy, anonymize, verify, check, load_adult
    from anonkit.models import KAnonymity, DistinctLDiversity, TCloseness, ...

Data flows one way: load → encode (:class:`Table`) → anonymize (an algorithm returns a
:class:`Release`) → :func:`verify` → measure (:mod:`anonkit.metrics`) → write (:mod:`anonkit.io`).
"""

from anonkit.datasets import load_adult
from anonkit.errors import AnonkitError, InputError
from anonkit.hierarchy import Hierarchy, read_hierarchy, write_hierarchy
from anonkit.pipeline import Result, anonymize
from anonkit.release import Release
from anonkit.schema import Attribute, Schema
from anonkit.table import Table
from anonkit.verify import Verification, check, verify

__version__ = "0.1.0"

__all__ = [
    "AnonkitError",
    "Attribute",
    "Hierarchy",
    "InputError",
    "Release",
    "Result",
    "Schema",
    "Table",
    "Verification",
    "anonymize",
    "check",
    "load_adult",
    "read_hierarchy",
    "verify",
    "write_hierarchy",
]
