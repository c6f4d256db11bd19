"""Stand-in for Colab's custom-widget-manager switch, behaving as Colab's does
(googlecolab/colabtools, ``google/colab/output/_widgets.py``): enabling it records the
manager's URL and hooks the shell's *display publisher*, which adds the manager's
metadata to every widget view published with ``display()`` (a ``display_data`` message).
A cell's last expression goes out through the display *hook* instead (an
``execute_result``) and is never tagged: a widget shown that way renders in Colab only if
it tags itself.
"""
from __future__ import annotations

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
MANAGER_URL = "https://ssl.gstatic.com/colaboratory-static/widgets/colab-cdn-widget-manager/bf763107cca07459/manager.min.js"

_installed_url = None


def _tag(msg):
    content = msg.get("content") or {}
    if _installed_url and (content.get("data") or {}).get(WIDGET_MIME):
        meta = content.setdefault("metadata", {}).setdefault(WIDGET_MIME, {})
        meta["colab"] = {"custom_widget_manager": {"url": _installed_url}}
    return msg


def _switch(url):
    global _installed_url
    import IPython

    pub = IPython.get_ipython().display_pub
    if url and not _installed_url:
        pub.register_hook(_tag)
    elif not url and _installed_url:
        pub.unregister_hook(_tag)
    _installed_url = url


def enable_custom_widget_manager(version: str = "5.0.0a") -> None:
    if version != "5.0.0a":
        raise ValueError(f"Unknown widgets version: {version}")
    _switch(MANAGER_URL)


def disable_custom_widget_manager() -> None:
    _switch(None)
