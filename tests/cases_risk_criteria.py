"""Bad-input catalogue, whole-release risk criteria (issue 27): ``average-risk``, ``sample-uniqueness``
and ``population-uniqueness`` with a parameter out of range, of the wrong type, missing or given twice,
and with an algorithm that cannot enforce a criterion judged on the whole release. Each is refused in
one line naming the key before any work; before these models existed every ``model:`` here was
unknown (a different refusal), and the algorithm refusal did not exist."""

from __future__ import annotations

from bad_input_kit import C, add_model, put


def risk(model: str, **entry: object) -> tuple[object, ...]:
    return (add_model({"model": model, **entry}),)


def with_algorithm(name: str, model: dict) -> tuple[object, ...]:
    return (add_model(model), put("algorithm", {"name": name}))


CASES = [
    C("avg-risk-threshold-above-1", 2, ("privacy.1.threshold",), cfg=risk("average-risk", threshold=1.5)),
    C("avg-risk-threshold-negative", 2, ("privacy.1.threshold",), cfg=risk("average-risk", threshold=-0.1)),
    C("avg-risk-threshold-text", 2, ("privacy.1.threshold",), cfg=risk("average-risk", threshold="0.1")),
    C("avg-risk-threshold-bool", 2, ("privacy.1.threshold",), cfg=risk("average-risk", threshold=True)),
    C("avg-risk-threshold-missing", 2, ("privacy.1.threshold",), cfg=risk("average-risk")),
    C("avg-risk-highest-zero", 2, ("privacy.1.highest_risk",),
      cfg=risk("average-risk", threshold=0.1, highest_risk=0.0, records_at_risk=0.1)),
    C("avg-risk-records-above-1", 2, ("privacy.1.records_at_risk",),
      cfg=risk("average-risk", threshold=0.1, highest_risk=0.2, records_at_risk=2)),
    C("avg-risk-unknown-key", 2, ("privacy.1", "k"), cfg=risk("average-risk", threshold=0.1, k=3)),
    C("sample-uniqueness-threshold-above-1", 2, ("privacy.1.threshold",),
      cfg=risk("sample-uniqueness", threshold=2)),
    C("sample-uniqueness-threshold-list", 2, ("privacy.1.threshold",),
      cfg=risk("sample-uniqueness", threshold=[0.1])),
    C("sample-uniqueness-estimator-key", 2, ("privacy.1", "estimator"),
      cfg=risk("sample-uniqueness", threshold=0.1, estimator="snb")),
    C("population-uniqueness-no-population", 2, ("population",),
      cfg=risk("population-uniqueness", threshold=0.01)),
    C("population-uniqueness-two-populations", 2, ("population", "region"),
      cfg=risk("population-uniqueness", threshold=0.01, population=1000, region="usa")),
    C("population-uniqueness-unknown-region", 2, ("privacy.1.region",),
      cfg=risk("population-uniqueness", threshold=0.01, region="mars")),
    C("population-uniqueness-unknown-estimator", 2, ("privacy.1.estimator",),
      cfg=risk("population-uniqueness", threshold=0.01, region="usa", estimator="poisson")),
    C("population-uniqueness-population-zero", 2, ("privacy.1.population",),
      cfg=risk("population-uniqueness", threshold=0.01, population=0)),
    C("population-uniqueness-population-float", 2, ("privacy.1.population",),
      cfg=risk("population-uniqueness", threshold=0.01, population=1000.5)),
    C("population-uniqueness-fraction-zero", 2, ("privacy.1.sampling_fraction",),
      cfg=risk("population-uniqueness", threshold=0.01, sampling_fraction=0.0)),
    C("population-uniqueness-fraction-above-1", 2, ("privacy.1.sampling_fraction",),
      cfg=risk("population-uniqueness", threshold=0.01, sampling_fraction=1.5)),
    C("population-uniqueness-iterations-zero", 2, ("privacy.1.iterations",),
      cfg=risk("population-uniqueness", threshold=0.01, region="usa", iterations=0)),
    C("population-uniqueness-population-below-records", 2, ("population",),
      cfg=risk("population-uniqueness", threshold=0.5, population=3)),
    C("avg-risk-with-mondrian", 2, ("whole release", "mondrian"),
      cfg=with_algorithm("mondrian", {"model": "average-risk", "threshold": 0.5})),
    C("sample-uniqueness-with-kaca", 2, ("whole release", "kaca"),
      cfg=with_algorithm("kaca", {"model": "sample-uniqueness", "threshold": 0.5})),
    C("population-uniqueness-with-mdav", 2, ("whole release", "mdav"),
      cfg=with_algorithm("mdav", {"model": "population-uniqueness", "threshold": 0.5, "region": "usa"})),
    C("avg-risk-unmet-at-fixed-levels", 1, ("average",),
      cfg=risk("average-risk", threshold=0.01)),
]
