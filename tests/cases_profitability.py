"""Bad-input catalogue, profitability (ARX's game-theoretic model, issue 27): the four models with an amount
missing, negative, infinite, of the wrong type or a key that does not apply; the journalist variants without a
population or under an algorithm that cannot count it; an attack model where the search cannot judge it; the
publisher-payout metric without a profitability model, with amounts that disagree or a bad key. Each is refused
in one line naming the key before any output is written; before these models existed every ``model:`` here was
unknown (another refusal) and the metric did not exist."""

from __future__ import annotations

from bad_input_kit import C, add_model, flash, put

AMOUNTS = {"publisher_benefit": 1200, "publisher_loss": 300, "adversary_gain": 120, "adversary_cost": 40}
NO_ATTACK = "no-attack-profitability"


def model(name: str = NO_ATTACK, **change: object) -> tuple[object, ...]:
    """The model ``name`` with the amounts changed (``None`` drops one)."""
    entry = {"model": name, **AMOUNTS, **change}
    return (add_model({k: v for k, v in entry.items() if v is not None or k not in AMOUNTS}),)


def without(key: str, name: str = NO_ATTACK) -> tuple[object, ...]:
    return (add_model({"model": name, **{k: v for k, v in AMOUNTS.items() if k != key}}),)


def payout(metric: object, *models: dict) -> tuple[object, ...]:
    return (flash, put("algorithm.metric", metric), *(add_model(m) for m in models))


SUBSET = put("input.subset", {"rows": [1, 2, 3, 4, 5, 6]})
NA = {"model": NO_ATTACK, **AMOUNTS}

CASES = [
    *[C(f"{NO_ATTACK}-missing-{k}", 2, (f"privacy.1.{k}",), cfg=without(k)) for k in AMOUNTS],
    *[C(f"{NO_ATTACK}-negative-{k}", 2, (f"privacy.1.{k}",), cfg=model(**{k: -1})) for k in AMOUNTS],
    *[C(f"profitability-missing-{k}", 2, (f"privacy.1.{k}",), cfg=without(k, "profitability")) for k in AMOUNTS],
    C("profitability-negative-loss", 2, ("privacy.1.publisher_loss",), cfg=model("profitability", publisher_loss=-5)),
    C("profitability-journalist-negative-gain", 2, ("privacy.1.adversary_gain",),
      cfg=model("profitability-journalist", adversary_gain=-0.5)),
    C(f"{NO_ATTACK}-journalist-missing-cost", 2, ("privacy.1.adversary_cost",),
      cfg=without("adversary_cost", f"{NO_ATTACK}-journalist")),
    C(f"{NO_ATTACK}-cost-text", 2, ("privacy.1.adversary_cost",), cfg=model(adversary_cost="40")),
    C(f"{NO_ATTACK}-gain-bool", 2, ("privacy.1.adversary_gain",), cfg=model(adversary_gain=True)),
    C(f"{NO_ATTACK}-benefit-list", 2, ("privacy.1.publisher_benefit",), cfg=model(publisher_benefit=[1200])),
    C(f"{NO_ATTACK}-benefit-null", 2, ("privacy.1.publisher_benefit",), cfg=model(publisher_benefit=None)),
    C(f"{NO_ATTACK}-gain-infinite", 2, ("adversary_gain",), cfg=model(adversary_gain=float("inf"))),
    C(f"{NO_ATTACK}-cost-nan", 2, ("privacy.1.adversary_cost",), cfg=model(adversary_cost=float("nan"))),
    C(f"{NO_ATTACK}-free-attacks", 2, ("adversary_cost", "free"), cfg=model(adversary_cost=0)),
    C(f"{NO_ATTACK}-unknown-key-k", 2, ("privacy.1.k", "does not apply"), cfg=model(k=3)),
    C(f"{NO_ATTACK}-attacker-key", 2, ("privacy.1.attacker", "unknown key"), cfg=model(attacker="journalist")),
    C("profitability-attack-key", 2, ("privacy.1.attack", "unknown key"),
      cfg=model("profitability", attack=True)),
    C("profitability-attack-mondrian", 2, ("full-domain transformation", "mondrian"),
      cfg=(*model("profitability"), put("algorithm", {"name": "mondrian"}))),
    C("profitability-attack-mdav", 2, ("full-domain transformation", "mdav"),
      cfg=(*model("profitability"), put("algorithm", {"name": "mdav"}))),
    C(f"{NO_ATTACK}-journalist-no-population", 2, ("input.subset", "counts the population"),
      cfg=model(f"{NO_ATTACK}-journalist")),
    C("profitability-journalist-no-population", 2, ("input.subset", "counts the population"),
      cfg=model("profitability-journalist")),
    C(f"{NO_ATTACK}-journalist-kaca", 2, ("kaca", "full-domain"),
      cfg=(*model(f"{NO_ATTACK}-journalist"), SUBSET, put("algorithm", {"name": "kaca"}))),
    C("payout-without-profitability", 2, ("algorithm.metric", "profitability model"),
      cfg=payout("publisher-payout")),
    C("payout-mapping-without-profitability", 2, ("algorithm.metric", "profitability model"),
      cfg=payout({"name": "publisher-payout", "attacker": "journalist"})),
    C("payout-two-different-amounts", 2, ("algorithm.metric", "different amounts"),
      cfg=payout("publisher-payout", NA, {**NA, "adversary_cost": 30})),
    C("payout-unknown-attacker", 2, ("algorithm.metric.attacker", "prosecutor"),
      cfg=payout({"name": "publisher-payout", "attacker": "marketer"}, NA)),
    C("payout-attacker-bool", 2, ("algorithm.metric.attacker", "prosecutor"),
      cfg=payout({"name": "publisher-payout", "attacker": True}, NA)),
    C("payout-gs-above-1", 2, ("algorithm.metric.gs", "less than or equal to 1"),
      cfg=payout({"name": "publisher-payout", "gs": 1.5}, NA)),
    C("payout-aggregate-key", 2, ("algorithm.metric.aggregate", "does not apply"),
      cfg=payout({"name": "publisher-payout", "aggregate": "sum"}, NA)),
    C("payout-costs-key", 2, ("algorithm.metric.costs", "unknown key"),
      cfg=payout({"name": "publisher-payout", "costs": {"publisher_benefit": 1}}, NA)),
]
