"""What the commands print for people: one small printer per section of a run's summary
(``summary``: models, risk, utility, generalization, run; ``verdict``; ``audit``), the other commands'
tables (``analysis``, ``listings``) and the figures' wording shared by all (``units``).

The ``--json`` outputs do not pass through here: they print the summary itself (``console.print_json``).
"""
