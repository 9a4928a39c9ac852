"""Getting started on a table nobody has configured yet: roles, hierarchies, models and a whole
config guessed from the data, each with the reason a data holder can check (the advice layer: above
the runner, below the faces; ``anonkit init`` and ``anonkit ui`` call it).

Public API
----------
``suggest_roles(frame) -> list[ColumnAdvice]``
    Per column: ``.name``, ``.type`` (numeric / date / categorical), ``.shape`` (``code``,
    ``integer`` or None), ``.role`` (identifier / quasi / sensitive / insensitive), ``.reason`` (one
    plain sentence), ``.candidates`` (``Candidate(role, score, reason)``, ranked, the suggested one
    first), ``.kind`` (the direct-identifier kind found by content: a key of ``KINDS``, or ``dob``),
    ``.distinct``, ``.unique_share``, ``.rank`` and ``.leakage`` (quasi-identifiers: the place among
    the candidates and the leakage of the best combination each takes part in). Direct identifiers
    are recognised by content (HIPAA Safe Harbor's kinds: names, e-mail and postal addresses, phone,
    social security, record and account numbers, web and IP addresses; dates spanning a lifetime as
    dates of birth) and by uniqueness; quasi-identifiers are ranked by the leakage of combinations
    (:func:`anonkit.analytics.leakage`). :mod:`anonkit.start.roles` states the rules.
``auto_hierarchy(values, *, name, type) -> dict``
    The inline builder spec (``{"builder": "ranges", "method": "width"}``, ``periods``, ``masking``,
    ``frequency``) for ``attributes.<name>.hierarchy``; ``type`` is numeric, date, categorical,
    ordinal or code. Checked by building it on the values.
``models_for_risk(*, highest=None, average=None) -> list[ModelAdvice]``
    Privacy-model entries that guarantee a re-identification risk target (shares: 0.05 = 5 %):
    each a plain config ``dict`` (``{"model": "k-anonymity", "k": 20}``) with ``.explanation``.
``starting_point(frame, *, input=None) -> StartingPoint``
    ``.config`` (the dict a YAML config parses to: input, roles, types, inline hierarchies, models,
    algorithm, output, seed; ``anonkit.plan.plan_from_config(parse_config(config))`` takes it),
    ``.columns`` (the ``ColumnAdvice`` list), ``.notes`` (why the models and the algorithm) and
    ``.to_yaml()`` (the commented config; parses back to ``.config``). ``input`` is the path the
    config names (or a whole ``input:`` mapping).
``read_input(path, *, separator=None, table=None, sheet=None) -> (frame, input_mapping)``
    A table of any format anonkit reads, a CSV's separator sniffed (``sniff_separator``), and the
    ``input:`` mapping that reads it the same way.
"""

from __future__ import annotations

from anonkit.start.detect import KINDS, identifier_kind, infer_type
from anonkit.start.hierarchies import auto_hierarchy
from anonkit.start.read import read_input, sniff_separator
from anonkit.start.risk import ModelAdvice, models_for_risk
from anonkit.start.roles import Candidate, ColumnAdvice, suggest_roles
from anonkit.start.starting import StartingPoint, starting_point

__all__ = ["KINDS", "Candidate", "ColumnAdvice", "ModelAdvice", "StartingPoint", "auto_hierarchy", "identifier_kind",
           "infer_type", "models_for_risk", "read_input", "sniff_separator", "starting_point", "suggest_roles"]
