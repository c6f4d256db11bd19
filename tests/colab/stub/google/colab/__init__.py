"""Stand-in for ``google.colab`` in the Colab-faithful notebook test: importing it is how
the book's setup cell knows it runs in Colab."""
