"""Serve a built site on a loopback port, as a static host would: for the browser tests
and the browser benchmark (`python -m generator.bench_browser`), which share it."""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import threading
from pathlib import Path


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def end_headers(self):
        # Other sites may read the data files (glossary.json for atlas-embed.js), as they
        # can from GitHub Pages, which sends this header with every file.
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()


class CompressingHandler(QuietHandler):
    """Serves text files gzip-compressed with a long cache lifetime for fingerprinted
    assets, as any production static host does (GitHub Pages, Netlify, nginx with gzip on),
    so that page-weight budgets measure what a reader's browser really transfers."""

    TEXT = {".html", ".css", ".js", ".json", ".svg", ".xml", ".txt", ".map"}

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if "gzip" not in self.headers.get("Accept-Encoding", "") or path.suffix not in self.TEXT or not path.is_file():
            return super().send_head()
        if not self.path.split("?")[0].endswith("/") and (Path(self.translate_path(self.path))).is_dir():
            return super().send_head()  # let the base class redirect /dir to /dir/
        body = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        cache = "public, max-age=31536000, immutable" if "/assets/" in self.path else "no-cache"
        self.send_header("Cache-Control", cache)
        self.end_headers()
        return io.BytesIO(body)


class serve:
    """Serve a built site on a loopback port for the duration of a `with` block;
    `compress=True` serves it gzip-compressed, as production hosts do."""

    def __init__(self, directory: Path, compress: bool = False):
        handler = functools.partial(CompressingHandler if compress else QuietHandler, directory=str(directory))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)

    def __enter__(self) -> str:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.httpd.server_port}"

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
