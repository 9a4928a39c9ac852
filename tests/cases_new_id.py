"""Bad-input catalogue, ``role: new-id`` (issue 28, item 6: sdcMicro's ``createNewID``).

A new-id column is replaced by random ids drawn from the run's seed; it takes nothing but its role.
Before the role existed every case here was refused as an unknown role (``got 'new-id'``), which
named neither the key that does not apply nor what to do; now each names the key (a seed of its own,
``publish``, a pseudonym's key source, a hierarchy or any other generalizing key), a new-id column
used as a quasi-identifier (by a model's ``qis``, PRAM, noise or local suppression), a record without
an id. The run's ``seed`` draws the ids (``seed:`` of the config
or ``--seed``): a seed under the attribute would promise a stability the role does not give.
"""

from __future__ import annotations

from bad_input_kit import C, add_model, edit_toy, put

NEW_ID = put("attributes.Salary", {"role": "new-id"})


def new_id(**keys: object):  # type: ignore[no-untyped-def]
    """``Salary`` (a column of distinct numbers, an id here) as a new-id column with ``keys``."""
    return put("attributes.Salary", {"role": "new-id", **keys})


CASES = [
    # ----------------------------------------------------------- keys the role does not take
    C("new-id-own-seed", 2, ("attributes.Salary", "seed"), cfg=(new_id(seed=3),)),
    C("new-id-publish", 2, ("attributes.Salary", "publish"), cfg=(new_id(publish="renumbered"),)),
    C("new-id-key-file", 2, ("attributes.Salary", "key_file"), cfg=(new_id(key_file="key"),)),
    C("new-id-key-env", 2, ("attributes.Salary", "key_env"), cfg=(new_id(key_env="ANONKIT_KEY"),)),
    C("new-id-key-text", 2, ("attributes.Salary.key", "unknown key 'key'"), cfg=(new_id(key="x" * 40),)),
    C("new-id-hierarchy", 2, ("attributes.Salary", "hierarchy"),
      cfg=(new_id(hierarchy="test2_hierarchy_Age.csv"),)),
    C("new-id-built-hierarchy", 2, ("attributes.Salary", "hierarchy"),
      cfg=(new_id(hierarchy={"builder": "intervals", "width": 5}),)),
    C("new-id-type", 2, ("attributes.Salary", "type"), cfg=(new_id(type="categorical"),)),
    C("new-id-format", 2, ("attributes.Salary", "format"), cfg=(new_id(format="%Y"),)),
    C("new-id-order", 2, ("attributes.Salary", "order"), cfg=(new_id(order=["3", "4"]),)),
    C("new-id-min-level", 2, ("attributes.Salary", "min_level"), cfg=(new_id(min_level=1),)),
    C("new-id-max-level", 2, ("attributes.Salary", "max_level"), cfg=(new_id(max_level=1),)),
    C("new-id-weight", 2, ("attributes.Salary", "weight"), cfg=(new_id(weight=0.3),)),
    C("new-id-categories", 2, ("attributes.Salary", "categories"), cfg=(new_id(categories={"3": "low"}),)),
    # ------------------------------------------------------- a new-id column used as a quasi-identifier
    C("new-id-pram-column", 2, ("Salary", "is an id", "algorithm.columns"),
      cfg=(NEW_ID, put("algorithm", {"name": "pram", "columns": ["Salary"]}))),
    C("new-id-rank-swap-column", 2, ("Salary", "is an id", "rank-swap"),
      cfg=(NEW_ID, put("algorithm", {"name": "rank-swap", "columns": ["Salary"]}))),
    C("new-id-pram-strata", 2, ("Salary", "is an id", "algorithm.by"),
      cfg=(NEW_ID, put("algorithm", {"name": "pram", "columns": ["ZIPCode"], "by": ["Salary"]}))),
    C("new-id-noise-column", 2, ("Salary", "is an id"),
      cfg=(NEW_ID, put("algorithm", {"name": "add-noise", "columns": ["Salary"]}))),
    C("new-id-suppression-importance", 2, ("Salary", "not a quasi-identifier"),
      cfg=(NEW_ID, put("algorithm", {"name": "local-suppression", "importance": ["Salary", "Age"]}))),
    # ------------------------------------------------------------------- data and engine
    C("new-id-empty-cell", 2, ("Salary", "row 1", "without a value to replace by a new id"), cfg=(NEW_ID,),
      files=(edit_toy("47677;29;3;", "47677;29;;"),)),
    C("new-id-l-diversity-on-it", 2, ("Salary", "not sensitive"),
      cfg=(NEW_ID, add_model({"model": "distinct-l-diversity", "l": 2, "attribute": "Salary"}))),
]
