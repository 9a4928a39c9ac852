"""anonkit: privacy-preserving publishing of microdata.

The public surface::

    from anonkit import Schema, Hierarchy, anonymize, verify, check, load_adult
    from anonkit.models import KAnonymity, DistinctLDiversity, TCloseness, ...

Data flows one way: load → encode (:class:`Table`) → anonymize (an algorithm returns a
:class:`Release`) → :func:`verify` → measure (:mod:`anonkit.metrics`) → write (:mod:`anonkit.io`).
"""

from typing import TYPE_CHECKING

from anonkit._lazy import lazy_names as _lazy_names
from anonkit.errors import AnonkitError, InputError

if TYPE_CHECKING:  # the names below load on first use (a lean ``import anonkit`` and ``anonkit --help``)
    from anonkit.datasets import load_adult
    from anonkit.hierarchy import Hierarchy, read_hierarchy, write_hierarchy
    from anonkit.pipeline import Result, anonymize
    from anonkit.release import Release
    from anonkit.schema import Attribute, Schema
    from anonkit.table import Table
    from anonkit.verifier import Verification, check, verify

#: public name → the module that defines it, imported when the name is first used (no public name
#: is also a submodule's name: importing the submodule would rebind it on the package)
_LAZY = {
    "load_adult": "anonkit.datasets",
    "Hierarchy": "anonkit.hierarchy",
    "read_hierarchy": "anonkit.hierarchy",
    "write_hierarchy": "anonkit.hierarchy",
    "Result": "anonkit.pipeline",
    "anonymize": "anonkit.pipeline",
    "Release": "anonkit.release",
    "Attribute": "anonkit.schema",
    "Schema": "anonkit.schema",
    "Table": "anonkit.table",
    "Verification": "anonkit.verifier",
    "check": "anonkit.verifier",
    "verify": "anonkit.verifier",
}


__getattr__, __dir__ = _lazy_names('anonkit', _LAZY, globals())


from anonkit._version import __version__ as __version__  # noqa: E402  (written once, below every layer)

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
