"""What every algorithm family uses, in one place.

* **Suppression** (ARX compatibility §2.3): ``max_suppression`` is the share of the records the
  models may suppress (default :data:`DEFAULT_MAX_SUPPRESSION`); the limit is ``⌊share · n⌋``
  records (:func:`suppression_limit`), and a release satisfies its models when the records its
  models suppress stay within it and something is released (:func:`suppression_verdict`).
* **The class size the models imply** (:func:`required_size`): what clustering and bucketizing
  algorithms aim for.
* **Reference checks** (:func:`check_references`, :func:`check_models`): every model names
  attributes of the right role, and no class size exceeds the table.
* **Progress and interruption** (:data:`PROGRESS`, :func:`report_progress`, :func:`checkpoint`):
  long loops report how far they are, which is also where a Ctrl-C request stops them
  (:mod:`anonkit.interrupt`).
"""

from __future__ import annotations

import contextvars
import math
from collections.abc import Callable, Sequence
from typing import Annotated

from pydantic import Field

from anonkit import interrupt
from anonkit.errors import InputError
from anonkit.models import Criterion, KAnonymity
from anonkit.table import Table

#: the share of records the models may suppress unless the user says otherwise: none
DEFAULT_MAX_SUPPRESSION = 0.0
#: an algorithm option: the share of records the models may suppress, in [0, 1]
MaxSuppression = Annotated[
    float, Field(ge=0, le=1, description="share of the records the models may suppress (ARX's limit ⌊share·n⌋)")
]


def suppression_limit(max_suppression: float, n: int) -> int:
    """ARX's limit ``⌊max_suppression · n⌋`` records (guarding against float noise)."""
    if not 0.0 <= max_suppression <= 1.0:
        raise InputError(f"max_suppression must lie in [0, 1], got {max_suppression!r}", key="max_suppression")
    return math.floor(max_suppression * n + 1e-9)


def suppression_verdict(suppressed: int, limit: int, released_classes: int) -> tuple[bool, str]:
    """Whether a release satisfies its models, and the sentence that says so: the records the models
    suppress stay within ``limit`` and at least one class is released."""
    if released_classes == 0:
        return False, "the models cannot be met: no class could be published"
    if suppressed <= limit:
        return True, "the models hold"
    return False, f"the models fail: {suppressed} records would have to be suppressed, the limit is {limit}"


def required_size(models: Sequence[Criterion]) -> int:
    """The class size clustering aims for: the largest minimum class size of the models on all QIs
    (``k`` of k-anonymity, ``l`` of l-diversity…), 2 if that is 1 and no k-anonymity model is given."""
    sizes = [int(m.minimum_class_size()) for m in models if m.qis is None]
    k = max(sizes, default=1)
    if k <= 1 and not any(isinstance(m, KAnonymity) for m in models):
        k = 2
    return max(k, 1)


def largest_k(models: Sequence[Criterion]) -> int | None:
    """The largest ``k`` of the k-anonymity models, on any attribute set (``None`` without one)."""
    ks = [int(m.k) for m in models if isinstance(m, KAnonymity)]
    return max(ks) if ks else None


def check_references(table: Table, models: Sequence[Criterion]) -> None:
    """Raise an :class:`InputError` when a model names an attribute of the wrong role."""
    for m in models:
        if m.attribute is not None and m.attribute not in table.sensitive:
            raise InputError(f"{m.name} refers to an attribute that is not sensitive", column=m.attribute)
        for q in m.qis or ():
            if q not in table.qi:
                raise InputError(f"{m.name} refers to an attribute that is not a quasi-identifier", column=q)


def check_models(table: Table, models: Sequence[Criterion]) -> None:
    """:func:`check_references`, and no model needs classes larger than the table (``k > n``; with a
    person column, more persons than the table has)."""
    check_references(table, models)
    people = table.person is not None
    n, unit = (table.n_persons, "persons") if people else (table.n_records, "records")
    for m in models:
        if m.minimum_class_size() > n:
            raise InputError(
                f"{m.describe()} needs classes of {m.minimum_class_size()} {unit} but the table has only {n}",
                key="k" if m.attribute is None else "l",
                value=m.minimum_class_size(),
            )


#: A callback ``(done, total)`` the CLI sets to draw a progress bar (checked transformations,
#: clusters grouped, records scanned…); ``None`` when nobody listens.
PROGRESS: contextvars.ContextVar[Callable[[int, int], None] | None] = contextvars.ContextVar(
    "anonkit_progress", default=None
)


def report_progress(done: int, total: int) -> None:
    """Tell the listener (if any) how far the work is; stop here if Ctrl-C was pressed."""
    interrupt.check()
    report = PROGRESS.get()
    if report is not None:
        report(done, total)


def checkpoint() -> None:
    """A place where a long computation may stop on Ctrl-C (raises ``KeyboardInterrupt``)."""
    interrupt.check()
