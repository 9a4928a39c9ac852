"""Bad-input catalogue, the measures switch (issue 30 item 1): ``measures: {skip: […]}`` names optional
measures (:data:`anonkit.metrics.OPTIONAL_MEASURES`) the summary leaves out.

Before the key existed every case here was refused as ``unknown key 'measures'`` — never naming
``measures.skip``, an unknown measure, a default measure or a repeated one; the words below are the
new refusals' (a misspelt name would otherwise leave the expensive measure switched on, silently).
"""

from __future__ import annotations

from bad_input_kit import C, flash, put

SKIP = "measures.skip"

CASES = [
    # names that are no measure at all: the line lists the optional and the default ones
    C("measures-unknown-name", 2, (SKIP, "unknown measure 'linkage'", "record_linkage", "gcp"),
      cfg=(put(SKIP, ["linkage"]),)),
    C("measures-hyphenated-name", 2, (SKIP, "unknown measure 'record-linkage'", "record_linkage"),
      cfg=(put(SKIP, ["record-linkage"]),)),
    C("measures-capitalised-name", 2, (SKIP, "unknown measure 'Record_Linkage'"),
      cfg=(put(SKIP, ["Record_Linkage"]),)),
    C("measures-search-metric-name", 2, (SKIP, "unknown measure 'kl-divergence'"),
      cfg=(put(SKIP, ["kl-divergence"]),)),
    C("measures-number-as-name", 2, (SKIP, "unknown measure 5"), cfg=(put(SKIP, [5]),)),
    C("measures-null-name", 2, (SKIP, "unknown measure None"), cfg=(put(SKIP, [None]),)),
    C("measures-nested-list", 2, (SKIP, "unknown measure ['record_linkage']"),
      cfg=(put(SKIP, [["record_linkage"]]),)),
    C("measures-unknown-after-a-good-one", 2, (SKIP, "unknown measure 'ncp'"),
      cfg=(put(SKIP, ["record_linkage", "ncp"]),)),
    # default measures: always computed, the summary's readers rely on them
    C("measures-skip-gcp", 2, (SKIP, "'gcp' is a default measure", "record_linkage"), cfg=(put(SKIP, ["gcp"]),)),
    C("measures-skip-loss", 2, (SKIP, "'loss' is a default measure"), cfg=(put(SKIP, ["loss"]),)),
    C("measures-skip-records-at-risk", 2, (SKIP, "'records_at_risk' is a default measure"),
      cfg=(put(SKIP, ["records_at_risk"]),)),
    C("measures-skip-prosecutor", 2, (SKIP, "'prosecutor_highest' is a default measure"),
      cfg=(put(SKIP, ["prosecutor_highest"]),)),
    C("measures-skip-uniqueness", 2, (SKIP, "'sample_uniqueness' is a default measure"),
      cfg=(put(SKIP, ["sample_uniqueness"]),)),
    C("measures-skip-entropy-with-flash", 2, (SKIP, "'entropy' is a default measure"),
      cfg=(flash, put(SKIP, ["entropy"]))),
    C("measures-default-after-an-optional-one", 2, (SKIP, "'avg_class_size' is a default measure"),
      cfg=(put(SKIP, ["record_linkage", "avg_class_size"]),)),
    # one name twice
    C("measures-listed-twice", 2, (SKIP, "'record_linkage' is listed twice"),
      cfg=(put(SKIP, ["record_linkage", "record_linkage"]),)),
    # shapes
    C("measures-skip-a-string", 2, (SKIP, "expected a list of measure names, got str"),
      cfg=(put(SKIP, "record_linkage"),)),
    C("measures-skip-null", 2, (SKIP, "expected a list of measure names, got NoneType"), cfg=(put(SKIP, None),)),
    C("measures-skip-a-mapping", 2, (SKIP, "expected a list of measure names, got dict"),
      cfg=(put(SKIP, {"record_linkage": True}),)),
    C("measures-skip-a-number", 2, (SKIP, "expected a list of measure names, got int"), cfg=(put(SKIP, 1),)),
    C("measures-skip-true", 2, (SKIP, "expected a list of measure names, got bool"), cfg=(put(SKIP, True),)),
    C("measures-unknown-key", 2, ("measures.only", "unknown key"), cfg=(put("measures.only", ["gcp"]),)),
    C("measures-a-list", 2, ("'measures'", "give a mapping"), cfg=(put("measures", ["record_linkage"]),)),
    C("measures-a-string", 2, ("'measures'", "give a mapping"), cfg=(put("measures", "skip"),)),
    C("measures-null", 2, ("'measures'", "give a mapping"), cfg=(put("measures", None),)),
]
