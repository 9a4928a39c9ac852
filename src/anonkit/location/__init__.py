"""Location cloaking: a trusted broker that forwards location-based requests k-anonymously.

Gruteser & Grunwald's spatial and temporal cloaking (MobiSys 2003; paper B §4.3; spec §4.11) over a
stream of messages — position updates and requests — rather than a table, with its own small nouns:
:class:`Area` (the service's area and its quadtree cells), :class:`Message`, :class:`Policy`,
:class:`Forwarded` (only its public fields leave the broker) and :class:`Cloaker` (the broker's
incrementally indexed state). :func:`cloak` runs a stream through it, :func:`cloak_batch` a whole
stream as arrays with the same semantics, :func:`read_messages` / :func:`write_forwarded` read and
write CSV and JSON Lines, and :func:`anonkit.location.stream.run_stream` is ``anonkit cloak``.
"""

from anonkit.location.batch import BatchResult, batch_arrays, cloak_batch
from anonkit.location.cloak import Cloaker, cloak, spatial_cloak, temporal_cloak
from anonkit.location.index import DEFAULT_DEPTH, MAX_DEPTH, Grid, QuadIndex
from anonkit.location.messages import (
    DEFAULT_K,
    Area,
    Forwarded,
    Kind,
    Message,
    OnFail,
    Policy,
    read_forwarded,
    read_messages,
    write_forwarded,
)

__all__ = [
    "DEFAULT_DEPTH",
    "DEFAULT_K",
    "MAX_DEPTH",
    "Area",
    "BatchResult",
    "Cloaker",
    "Forwarded",
    "Grid",
    "Kind",
    "Message",
    "OnFail",
    "Policy",
    "QuadIndex",
    "batch_arrays",
    "cloak",
    "cloak_batch",
    "read_forwarded",
    "read_messages",
    "spatial_cloak",
    "temporal_cloak",
    "write_forwarded",
]
