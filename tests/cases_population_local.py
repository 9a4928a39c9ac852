"""Bad-input catalogue, population models under local recoding (issue 27, item 1): Mondrian and MDAV
count k-map and δ-presence over the region each class publishes; the other local algorithms refuse
them in one line naming those that can; δ-presence's dmin > 0 and MDAV's centroids are refused before
any work; a population the published regions cannot meet is "cannot be met" (exit 1) with the reason.

Before these, Mondrian and MDAV refused every population model ("cannot enforce", naming only the
full-domain algorithms), so none of these lines was said.
"""

from __future__ import annotations

from bad_input_kit import C, add_model, put

KMAP = {"model": "k-map", "k": 2}
PRESENCE = {"model": "delta-presence", "dmax": 0.9}
DMIN = {"model": "delta-presence", "dmax": 0.9, "dmin": 0.1}
ROWS = put("input.subset", {"rows": [1, 2, 3, 4, 5]})
TAKERS = "mdav, mondrian"


def _on(name: str, **options: object):
    return put("algorithm", {"name": name, **options})


CASES = [
    # the local algorithms that cannot count the population name the ones that can
    *[C(f"kmap-{name}-names-takers", 2, (name, "cannot enforce 2-map", TAKERS), cfg=(ROWS, add_model(KMAP), _on(name)))
      for name in ("kaca", "k-primacy", "uhra", "bka-js", "anatomy", "stack-and-deal", "iab")],
    *[C(f"presence-{name}-names-takers", 2, (name, "cannot enforce", "presence", TAKERS),
        cfg=(ROWS, add_model(PRESENCE), _on(name))) for name in ("kaca", "uhra", "anatomy")],
    # δ-presence's lower bound: population records between the published regions would have δ = 0
    C("presence-dmin-mondrian", 2, ("mondrian", "dmin > 0", "set dmin: 0"),
      cfg=(ROWS, add_model(DMIN), _on("mondrian"))),
    C("presence-dmin-mondrian-relaxed", 2, ("mondrian", "dmin > 0"),
      cfg=(ROWS, add_model(DMIN), _on("mondrian", mode="relaxed"))),
    C("presence-dmin-mdav", 2, ("mdav", "dmin > 0"),
      cfg=(ROWS, add_model(DMIN), _on("mdav", output="intervals"))),
    # MDAV's centroids cover no population record but their own value
    C("kmap-mdav-centroids", 2, ("centroids", "output: intervals"), cfg=(ROWS, add_model(KMAP), _on("mdav"))),
    C("presence-mdav-centroids", 2, ("centroids", "output: intervals"),
      cfg=(ROWS, add_model(PRESENCE), _on("mdav", output="centroids"))),
    # what the published regions cannot meet: exit 1 with the reason
    C("kmap-mondrian-above-population", 1, ("cannot be met", "10-map", "one class"),
      cfg=(ROWS, add_model({"model": "k-map", "k": 10}), _on("mondrian"))),
    C("kmap-mdav-above-population", 1, ("cannot be met", "10-map", "one class"),
      cfg=(ROWS, add_model({"model": "k-map", "k": 10}), _on("mdav", output="intervals"))),
    C("presence-mondrian-dmax-below-share", 1, ("cannot be met", "presence", "one class"),
      cfg=(ROWS, add_model({"model": "delta-presence", "dmax": 0.5}), _on("mondrian"))),
    C("presence-mdav-dmax-below-share", 1, ("cannot be met", "presence", "one class"),
      cfg=(ROWS, add_model({"model": "delta-presence", "dmax": 0.5}), _on("mdav", output="intervals"))),
]
