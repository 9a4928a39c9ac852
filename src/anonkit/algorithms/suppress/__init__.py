"""Cell suppression (issue 28): quasi-identifier cells published as ``*``, which match any value."""
