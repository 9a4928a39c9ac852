"""Bad-input catalogue, the privacy models' declarations (issue 24: each model declared once).

A sensitive ``attribute: ''`` passes the config's schema (it is text) and is refused by the model's
own check, which names its Python argument; the error used to blame ``privacy.1.sensitive``, a key
no config has. The parameters are now declared once, with their config key, so the error names the
key the user wrote (``privacy.1.attribute``).
"""

from __future__ import annotations

from bad_input_kit import C, add_model


def _empty(model: str, **entry: object) -> object:
    return add_model({"model": model, "attribute": "", **entry})


CASES = [
    C("model-attribute-empty-l-diversity", 2, ("privacy.1.attribute", "column name"),
      cfg=(_empty("l-diversity", l=2),)),
    C("model-attribute-empty-t-closeness", 2, ("privacy.1.attribute", "column name"),
      cfg=(_empty("t-closeness", t=0.5),)),
    C("model-attribute-empty-beta-likeness", 2, ("privacy.1.attribute", "column name"),
      cfg=(_empty("beta-likeness", beta=1.0),)),
    C("model-attribute-empty-delta-disclosure", 2, ("privacy.1.attribute", "column name"),
      cfg=(_empty("delta-disclosure", delta=1.0),)),
    C("model-attribute-empty-theta-sensitivity", 2, ("privacy.1.attribute", "column name"),
      cfg=(_empty("theta-sensitivity", k=2),)),
    C("model-attribute-empty-background-knowledge", 2, ("privacy.1.attribute", "column name"),
      cfg=(_empty("background-knowledge", J=0.5),)),
]
