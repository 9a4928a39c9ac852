"""The report of a run: one self-contained HTML page a privacy officer reads top to bottom to decide
whether to publish (issue 14).

:func:`build_report` makes the page from a run's summary, its input and release frames, the config
text, the audit and an exploration; :func:`write_report` writes it atomically; :func:`report_from_run`
does both from a ``--json`` summary file, re-reading (and checking the SHA-256 of) the files it names.
:mod:`anonkit.report.figures` draws each figure on its own, for notebooks.
"""

from anonkit.report.html import build_report, write_report
from anonkit.report.run import report_from_run

__all__ = ["build_report", "report_from_run", "write_report"]
