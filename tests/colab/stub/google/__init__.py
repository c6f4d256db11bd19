"""A stand-in for Colab's ``google`` namespace (tests only): see colab/output/_widgets.py."""
