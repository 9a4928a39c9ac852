"""Reproductions of the source papers' experiments (``anonkit experiment …``).

Each module exposes ``run(...) -> pandas.DataFrame`` (the figures, also written as CSV with a PNG
plot), ``cli_run(...) -> str`` (the report the command line prints: our figures beside the paper's
findings) and ``main(argv)``.

* :mod:`anonkit.experiments.stack_and_deal` — paper E: distinct-l and maximum EMD against k,
  Stack and Deal versus random classes of the same sizes.
* :mod:`anonkit.experiments.iab` — paper C: leakage ranking, IAB against Flash on the same
  anonymity requirements (smart-health data and Adult), post-analytics with and without fakes.
* :mod:`anonkit.experiments.uhra` — paper A: UHRA against BKA-JS and k-primacy on Adult and BKseq
  (R-U maps of GCP against record linkage over k, J and t; Tables 3–5; runtime; the
  background-knowledge attack on every algorithm's release).
* :mod:`anonkit.experiments.angelization` — paper D: (θ*,k)-utility angelization against
  θ-sensitive k-anonymity (record level) and (k,l)-diversity for 1:M data over k and λ (NCP, query
  accuracy, record intersection, linkability, time).
* :mod:`anonkit.experiments.cloaking` — paper B §4.3: spatial and temporal cloaking on a simulated
  city for k_min ∈ {2, 5, 10, 20} (area, delay, served share) against restricted-space and
  observation identification, with and without cloaking.
"""

#: experiment name → ``module:function`` of its command-line entry point
EXPERIMENTS: dict[str, str] = {
    "stack-and-deal": "anonkit.experiments.stack_and_deal:cli_run",
    "uhra": "anonkit.experiments.uhra:cli_run",
    "iab": "anonkit.experiments.iab:cli_run",
    "angelization": "anonkit.experiments.angelization:cli_run",
    "cloaking": "anonkit.experiments.cloaking:cli_run",
}

__all__ = ["EXPERIMENTS"]
