"""Stand-in for ``google.colab.output``: only what the book calls."""
from ._widgets import disable_custom_widget_manager, enable_custom_widget_manager  # noqa: F401
