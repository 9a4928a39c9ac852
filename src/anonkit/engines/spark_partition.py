"""The partition family's own path on the Spark engine (strict Mondrian), as Mondrian's declaration
names it (``runners={"spark": "anonkit.engines.spark_partition:partition_on_spark"}``).

The cuts are made on Spark (:mod:`anonkit.engines.spark_mondrian`); the published rows stay on
Spark, shuffled with the seed and verified from Spark's counts of the published classes against the
input's sensitive distribution (also counted on Spark). What it returns (:class:`OwnRelease`) is
what the runner's one summary builder needs (:func:`anonkit.runner.summary.measured_summary`): the
published rows, the verification, and the counted release of the distinct quasi-identifier tuples
with their records and classes (collected to the driver: as many rows as distinct tuples, the bound
the lattice search's driver has too), whose measures equal the local engine's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anonkit import interrupt
from anonkit.algorithms.common import DEFAULT_MAX_SUPPRESSION
from anonkit.models import Criterion
from anonkit.release import Release
from anonkit.schema import Schema
from anonkit.verifier import Verification

__all__ = ["OwnRelease", "partition_on_spark"]


@dataclass
class OwnRelease:
    """What an algorithm's own path on an engine gives the runner: the counts, whether the models
    hold (and why not), and when they do the published rows, their verification, the release to
    measure, the schema it was verified under and the path's notes."""

    records: int
    released: int
    suppressed: int
    classes: int
    satisfied: bool
    message: str
    published: Any = None
    verification: Verification | None = None
    measured: Release | None = None
    schema: Schema | None = None
    notes: dict[str, Any] = field(default_factory=dict)


def partition_on_spark(runner: Any, frame: object, schema: Schema, models: list[Criterion],
                       options: dict[str, object], *, algorithm: str, seed: int, missing: str,
                       strip: bool) -> OwnRelease:
    """Mondrian (strict) on Spark, as the algorithm ``algorithm`` declares; see the module docstring."""
    from anonkit.engines.spark import is_spark_frame
    from anonkit.engines.spark_mondrian import counted_release, mondrian_on_spark

    df = frame if is_spark_frame(frame) else runner.session.createDataFrame(pd.DataFrame(frame))
    published, facts = mondrian_on_spark(
        df, schema, models, partition_rows=runner.partition_rows, mode=options.get("mode"),
        max_suppression=options.get("max_suppression", DEFAULT_MAX_SUPPRESSION),
        missing=missing, strip=strip, measures=True,
    )
    out = OwnRelease(records=facts["records"], released=facts["released"], suppressed=facts["suppressed"],
                     classes=facts["classes"], satisfied=bool(facts["satisfied"]) and facts["released"] > 0,
                     message=facts["message"])
    if not out.satisfied:
        return out
    resolved = facts["schema"]
    published = runner.shuffle(published, seed)  # nothing is suppressed when the models hold: nothing to mark
    sens = sorted({m.attribute for m in models if m.attribute is not None})
    reference, reference_weights = None, None
    if sens:  # the input's sensitive distribution (t-closeness, β-likeness, δ-disclosure)
        counted = runner.collect(df.groupBy(*sens).count())
        reference_weights = counted.pop("count").to_numpy(dtype=np.int64)
        reference = counted
    verification = runner.verify(published, resolved, models, reference=reference,
                                 reference_weights=reference_weights)
    if not verification.ok:
        raise AssertionError("the release failed independent verification:\n" + verification.summary())
    interrupt.check()
    release = counted_release(facts["counted"], resolved, algorithm=algorithm, missing=missing, strip=strip)
    if (release.n_released, release.n_suppressed, release.n_classes) != (
            facts["released"], facts["suppressed"], facts["classes"]):
        raise AssertionError("the Spark classes' counted release disagrees with their facts")
    out.published, out.verification, out.measured, out.schema = published, verification, release, resolved
    out.notes = {"partitions": facts["partitions"], "spark_levels": facts["top_levels"],
                 "spark_groups": facts["groups"], "largest_group": facts["largest_group"]}
    return out
