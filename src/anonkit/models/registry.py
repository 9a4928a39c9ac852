"""The registry of privacy models: every declaration (:mod:`anonkit.models.spec`), in the order the
docs list them, so the config, the API, the CLI and the tests see every model the same way.

The order is written here once (:data:`ORDER`); a model declared but missing from it (or listed but
not declared) is an error at import, so a new model cannot be left out of the config.
"""

from __future__ import annotations

import json
from functools import cache

import anonkit.models  # noqa: F401  (imports every model module, so every declaration is made)
from anonkit.errors import InputError
from anonkit.models.spec import DECLARED, ModelSpec

#: the models by name, in the order the docs and the config's error messages list them
ORDER: tuple[str, ...] = (
    "k-anonymity", "distinct-l-diversity", "entropy-l-diversity", "recursive-cl-diversity", "frequency-l-diversity",
    "t-closeness", "beta-likeness", "delta-disclosure", "background-knowledge", "theta-sensitivity",
    "average-risk", "sample-uniqueness", "population-uniqueness", "individual-risk",
    "k-map", "estimated-k-map", "delta-presence",
    "profitability", "profitability-journalist", "no-attack-profitability", "no-attack-profitability-journalist",
    "differential-privacy",
)


@cache
def models() -> dict[str, ModelSpec]:
    """Every declared model by name, in :data:`ORDER`."""
    found = {s.name: s for s in DECLARED}
    if set(found) != set(ORDER) or len(found) != len(DECLARED):
        raise RuntimeError(f"the model registry's ORDER {sorted(ORDER)} is not the declared models {sorted(found)}")
    return {name: found[name] for name in ORDER}


def get(name: str) -> ModelSpec:
    """The declaration of the model ``name`` (its name or its config name)."""
    for spec in models().values():
        if name in (spec.name, spec.tag):
            return spec
    raise InputError(f"unknown model {name!r}; available: {', '.join(config_names())}", key="model")


def config_names() -> tuple[str, ...]:
    """The names a config's ``model:`` may give, a family (``l-diversity``, which takes ``variant``)
    before its first variant."""
    out: list[str] = []
    for spec in models().values():
        if spec.variant_of and spec.variant_of not in out:
            out.append(spec.variant_of)
        out.append(spec.tag)
    return tuple(out)


def variants(family: str) -> dict[str, str]:
    """``variant:`` of ``model: family`` → the config name of the model it names."""
    return {s.variant: s.tag for s in models().values() if s.variant_of == family and s.variant}


def describe_all() -> list[dict[str, object]]:
    """Every model as a JSON-able mapping (what ``anonkit models --json`` prints)."""
    return [s.describe() for s in models().values()]


def to_json() -> str:
    return json.dumps(describe_all(), indent=2, ensure_ascii=False, default=str)


__all__ = ["ORDER", "ModelSpec", "config_names", "describe_all", "get", "models", "to_json", "variants"]
