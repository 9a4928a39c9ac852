"""The plan layer: a config (YAML or Python) validated once into an immutable :class:`Plan`.

Public: :class:`Plan`, :func:`plan_from_config`, :func:`plan_from_yaml` (:mod:`anonkit.plan.core`);
:mod:`anonkit.plan.places` (every place a run reads and writes, the one path rule);
:mod:`anonkit.plan.load` (the input, schema and priors a config declares). The runner
(:mod:`anonkit.runner`), the audit, explore, the report and the CLI read plans; nothing below the
plan validates the config again.
"""

from anonkit.plan.core import Plan, plan_from_config, plan_from_yaml

__all__ = ["Plan", "plan_from_config", "plan_from_yaml"]
