"""What the scripts that look at pages in a browser share (legibility_report,
bench_widgets, figure_sandbox): a quiet local HTTP server over one folder, and Debian's
headless Chromium. Nothing leaves the machine: the scripts route every other request to
an abort themselves."""
from __future__ import annotations

import functools
import http.server
import os
import pathlib
import threading


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(directory: str | pathlib.Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``directory`` on a free local port from a daemon thread: (the server, its base
    URL). Call the server's ``shutdown()`` when done."""
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(directory)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def chromium(pw):
    """Debian's Chromium (``$CHROMIUM`` for another), headless, launched by playwright
    ``pw`` without the sandbox or a GPU, as the tests run it."""
    return pw.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                              headless=True, args=["--no-sandbox", "--disable-gpu"])
