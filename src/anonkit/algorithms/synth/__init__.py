"""Synthetic tables drawn from a differentially private model (issue 29): no published row is a
record. ``dp_synthetic.py`` declares the algorithm; ``_domain.py`` reads the declared domain,
``_accounting.py`` the privacy budget, ``_draws.py`` every noisy draw (OpenDP), ``_mst.py`` and
``_aim.py`` the two selection methods, ``_model.py`` the graphical model (private-pgm, ``mbi``)."""
