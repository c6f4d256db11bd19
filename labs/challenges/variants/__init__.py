"""Versions of the weakest references that :mod:`labs.challenges.on_device` times beside
them (``VARIANTS``), so one GPU run can pick the best; each has the reference's names."""
