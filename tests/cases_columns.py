"""Bad-input cases of issue 23 classes 5 and 6: no column disappears silently. Anatomy protects one
sensitive attribute: the toy table has two (Salary, Disease), so the other is refused by name, not
dropped; the ``insensitive`` option takes keep or drop only."""

from bad_input_kit import C, put

ANATOMY = {"name": "anatomy", "l": 3}

CASES = [
    C("anatomy-second-sensitive-refused", 2, ("would not publish", "Salary", "identifier"),
      cfg=(put("algorithm", {**ANATOMY, "sensitive": "Disease"}),)),
    C("anatomy-second-sensitive-refused-other", 2, ("would not publish", "Disease", "identifier"),
      cfg=(put("algorithm", {**ANATOMY, "sensitive": "Salary"}),)),
    C("anatomy-second-sensitive-from-model", 2, ("would not publish", "Salary"),
      cfg=(put("algorithm", {"name": "anatomy"}),
           put("privacy", [{"model": "l-diversity", "attribute": "Disease", "l": 3, "variant": "distinct"}]))),
    C("anatomy-insensitive-option-bad", 2, ("insensitive", "keep", "drop"),
      cfg=(put("algorithm", {**ANATOMY, "sensitive": "Disease", "insensitive": "hide"}),)),
    C("angelization-insensitive-option-bad", 2, ("insensitive", "keep", "drop"),
      cfg=(put("algorithm", {"name": "angelization", "insensitive": "maybe"}),)),
    C("kl-diversity-insensitive-option-bad", 2, ("insensitive", "keep", "drop"),
      cfg=(put("algorithm", {"name": "kl-diversity", "insensitive": True}),)),
]
