"""``anonkit audit``: risk models and attack simulations on a release, whoever made it.

:func:`anonkit.audit.run.audit` runs them on :class:`anonkit.audit.inputs.AuditInputs` (read by
:func:`anonkit.audit.inputs.load_audit_inputs`) and judges them against the thresholds
(:mod:`anonkit.risk.thresholds`, ``audit: {thresholds: …}`` in a config). This package's
``__init__`` imports nothing: ``audit.run`` imports the pipeline, which should not load with the
package.
"""
