"""The privacy models' declarations (:mod:`anonkit.models.spec`) and what reads them."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest

from anonkit.algorithms import registry as algorithms
from anonkit.config import MODEL_ENTRIES, parse_config
from anonkit.errors import InputError
from anonkit.models import BackgroundKnowledge, Criterion, EntropyLDiversity, KAnonymity, TCloseness
from anonkit.models import registry as models
from anonkit.models.spec import Param, privacy_model
from anonkit.stats import ClassStats


def test_monotonicity_is_read_from_the_declaration() -> None:
    assert EntropyLDiversity("S", 2).monotonic_generalization
    assert not EntropyLDiversity("S", 2, "grassberger").monotonic_generalization  # When("estimator", "shannon")
    assert not TCloseness("S", 0.2).monotonic_suppression and TCloseness("S", 0.2).monotonic_generalization
    assert KAnonymity(2).monotonic_suppression
    gen = models.get("entropy-l-diversity").describe()["monotonic"]
    assert gen == {"generalization": "when estimator is shannon", "suppression": False}


def test_record_level_is_declared_by_the_statistics_a_model_needs() -> None:
    assert BackgroundKnowledge("S", 0.5).spec.record_level
    assert [s.name for s in models.models().values() if s.record_level] == ["background-knowledge"]
    uhra = algorithms.get("uhra")
    assert uhra.enforces_model(BackgroundKnowledge("S", 0.5)) and uhra.enforces_model(KAnonymity(2))
    assert not algorithms.get("flash").enforces_model(BackgroundKnowledge("S", 0.5))


def test_a_declaration_must_cover_the_constructor() -> None:
    with pytest.raises(TypeError, match="declared parameters"):
        @privacy_model("half", label="half", summary="x", params=(Param("k", "count", ge=1),), needs=("sizes",))
        @dataclass(frozen=True)
        class Half(Criterion):
            k: int
            extra: int = 0

            def passes(self, stats: ClassStats) -> np.ndarray:
                return stats.sizes >= self.k

            def achieved(self, stats: ClassStats) -> float:
                return 0.0

    with pytest.raises(TypeError, match="unknown needs"):
        @privacy_model("odd", label="odd", summary="x", params=(), needs=("moods",))
        @dataclass(frozen=True)
        class Odd(Criterion):
            def passes(self, stats: ClassStats) -> np.ndarray:
                return stats.sizes > 0

            def achieved(self, stats: ClassStats) -> float:
                return 0.0


def test_an_undeclared_criterion_is_a_monotonic_class_model() -> None:
    @dataclass(frozen=True)
    class Mine(Criterion):
        def passes(self, stats: ClassStats) -> np.ndarray:
            return stats.sizes > 1

        def achieved(self, stats: ClassStats) -> float:
            return 0.0

    m = Mine()
    assert m.monotonic_generalization and m.monotonic_suppression and not m.spec.record_level


def test_the_config_entries_are_the_declarations() -> None:
    """One entry class per model, whose keys are the declared parameters the config gives."""
    assert [e.spec for e in MODEL_ENTRIES] == list(models.models().values())
    for entry in MODEL_ENTRIES:
        keys = {f.alias or n for n, f in entry.model_fields.items()} - {"model"}
        if entry.spec.variant_of:  # model: l-diversity, variant: entropy
            keys -= {"variant"}
        declared = {p.config_key for p in entry.spec.params if p.in_config}
        assert keys == declared, entry.__name__


def test_a_constraint_is_written_once() -> None:
    """t's upper bound comes from the declaration on both faces, with the same words."""
    t = models.get("t-closeness").param("t")
    assert (t.gt, t.le) == (0, 1)
    with pytest.raises(InputError, match=r"t must be a positive number at most 1\.0, got 1\.5"):
        TCloseness("S", 1.5)
    config = {"input": {"path": "x.csv"}, "attributes": {"a": {"role": "quasi"}, "s": {"role": "sensitive"}},
              "privacy": [{"model": "t-closeness", "attribute": "s", "t": 1.5}]}
    with pytest.raises(InputError, match=r"privacy\.0\.t"):
        parse_config(config)
    config["privacy"][0]["t"] = 1.0
    assert parse_config(config).models() == [TCloseness("s", 1.0)]


def test_the_registry_describes_every_model_as_json() -> None:
    described = json.loads(models.to_json())
    assert [d["name"] for d in described] == list(models.ORDER)
    assert models.config_names()[:3] == ("k-anonymity", "l-diversity", "distinct-l-diversity")
    k = described[0]
    assert k["params"][0] == {"name": "k", "key": "k", "kind": "count", "type": "a positive whole number",
                              "choices": None, "required": True, "default": None,
                              "description": "the smallest class size"}
    theta = next(d for d in described if d["name"] == "theta-sensitivity")
    assert {p["key"] for p in theta["params"]} == {"attribute", "k", "lambda", "distinct"}
    assert theta["needs"] == ["categories", "histogram", "sizes"]


def test_the_models_command_lists_every_declared_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """``anonkit models`` reads the declarations: every model, its config entry and parameters."""
    import io
    import json

    from rich.console import Console
    from typer.testing import CliRunner

    from anonkit.cli import app, console
    from anonkit.models.registry import describe_all

    res = CliRunner().invoke(app, ["models", "--json"])
    assert res.exit_code == 0, res.output
    listed = json.loads(res.stdout)
    assert [m["name"] for m in listed] == [m["name"] for m in describe_all()] and len(listed) >= 10
    k = next(m for m in listed if m["name"] == "k-anonymity")
    assert k["config"] == {"model": "k-anonymity"} and k["params"][0]["key"] == "k" and k["needs"] == ["sizes"]
    wide = Console(file=io.StringIO(), width=240, color_system=None)
    monkeypatch.setattr(console, "out", wide)  # one row per line
    res = CliRunner().invoke(app, ["models"])
    shown = wide.file.getvalue()
    assert res.exit_code == 0 and "model: t-closeness" in shown and "model: background-knowledge" in shown
