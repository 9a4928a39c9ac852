"""Perturbative methods (issue 28, sdcMicro's ``pram``, ``addNoise``): every record is published, some of
its values changed at random, so the release is **not truthful by design**.

The family's shape, shared by every method (:mod:`anonkit.algorithms.perturb._release`):

* **What is published.** One table: every released record (records suppressed up front by
  ``missing: suppress`` are left out), every column the input publishes, the named columns perturbed,
  rows shuffled with the run's seed. It is :class:`~anonkit.algorithms.perturb._release.PerturbedRelease`'s
  ``to_frame()`` and the one table the declaration names (``tables=("perturbed",)``), so the runner's
  write, summary, audit and report paths read it as any one-table release.
* **What is verified.** Not the privacy models (a perturbative method does not enforce them): the
  declaration's ``verifier=`` recounts what the method promises from the published table, the input
  and what the release publishes about itself (:mod:`anonkit._verify_perturb`): the columns not named
  are the input's, the PRAM matrices are stochastic (and invariant when said) and allow every change,
  the noise has the stated level. A release that fails is a bug (``AssertionError``), as for every
  algorithm.
* **What ``privacy:`` means.** The models are *judged, not enforced*: the audit recomputes them on the
  published (perturbed) values and the run's verdict reports them; with ``audit.required: true`` a
  failing model refuses the release before anything is written. Whole-release models (average risk,
  uniqueness) are refused before any work, as for every algorithm outside the full-domain searches.
* **What the summary says.** ``message`` states in words what is and is not true of the published
  values, column by column; the notes hold each method's published parameters (a PRAM matrix per
  column and stratum, each noise column's σ).

The methods: ``pram``, ``add-noise``, ``rank-swap``, ``record-swap`` (households' geography),
``shuffle`` and ``microaggregation`` (sdcMicro's methods, by strata). A new method plugs in as one
module here: a function declared ``@algorithm(name, family="perturb", enforces=(), tables=PUBLISHED_TABLES,
randomized=True, verifier=…)`` that builds the perturbed frame in input order, calls
:func:`~anonkit.algorithms.perturb._release.perturbed_release` with its words for the summary, and a
verifier that calls :func:`~anonkit.algorithms.perturb._release.verify_perturbed` with its own checks
(:mod:`anonkit._verify_perturb`, :mod:`anonkit._verify_swap`, ``_micro_checks``).
"""
