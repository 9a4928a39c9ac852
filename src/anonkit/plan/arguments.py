"""The Python API's plan: :func:`anonkit.anonymize`'s arguments validated once into a :class:`Plan`.

``anonymize(frame, schema, models, algorithm=…, seed=…, **options)`` makes the same immutable
:class:`~anonkit.plan.core.Plan` a YAML config makes (:func:`~anonkit.plan.core.plan_from_config`):
the schema, the models as a list of privacy models, the metric, the seed and the algorithm's
options by its declaration are checked here, at the public boundary, and nothing below checks them
again (scikit-learn's ``validate_params`` pattern). Such a plan reads a frame, not a file, and
writes nothing: it has no places, and — since it holds Python objects no config spells (built
hierarchies, models, an engine object) — no YAML declaration.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

from anonkit._api_checks import check_metric, check_models, check_schema
from anonkit.algorithms import registry
from anonkit.algorithms.spec import RUNTIME
from anonkit.metrics import check_skipped
from anonkit.plan.core import Plan
from anonkit.release import check_seed

__all__ = ["plan_from_arguments"]


def plan_from_arguments(schema: object, models: object, *, algorithm: str | None = None, seed: object = 0,
                        suppressed: str = "drop", missing: str = "value", strip: bool = True,
                        person_qi: str = "error", metric: object = None, engine: Any = None,
                        options: dict[str, object] | None = None, skip_measures: object = ()) -> Plan:
    """A :class:`Plan` from the Python API's arguments (see :func:`anonkit.anonymize` for each).

    Raises
    ------
    InputError
        A schema that is not a :class:`~anonkit.schema.Schema`, models that are not a non-empty list of
        privacy models, a bad metric, seed, algorithm name or option, a measure that is not an optional one in
        ``skip_measures`` (one line naming it).
    """
    checked_schema = check_schema(schema)
    checked_models = check_models(models)
    checked_metric = check_metric(metric)
    run_seed = check_seed(seed)
    skipped = check_skipped(skip_measures, "skip_measures")
    spec = registry.get(algorithm)
    given = {k: v for k, v in (options or {}).items() if k not in RUNTIME}
    validated = MappingProxyType(spec.validate(given))
    return Plan(config=None, base=Path("."), config_file=None, input_path=None, output_path=None, report=None,
                seed=run_seed, engine="local" if engine is None else engine, algorithm=spec, options=validated,
                models=tuple(checked_models), outputs=(), manifest=None, reads=(), writes=(), metric=checked_metric,
                suppressed=suppressed, missing=missing, strip=strip, person_qi=person_qi, schema=checked_schema,
                skip_measures=skipped)
