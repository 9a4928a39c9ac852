"""Background-knowledge-aware anonymization (issue 5, paper A): UHRA, and the BKA-JS and k-primacy
baselines. Their shared machinery is in ``_engine`` (models, QI space, release) and ``_kernels``
(numba)."""
