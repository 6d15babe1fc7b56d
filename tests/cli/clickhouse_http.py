"""A ClickHouse engine behind ClickHouse's HTTP interface, for the clickhouse:// tests.

No clickhouse-server that the pinned clickhouse-connect can talk to installs here (Debian's
is ClickHouse 18.16: docs/sources.md), so the tests put chDB (ClickHouse 26.9, in-process)
behind the HTTP protocol clickhouse-connect speaks: each request's SQL (the ``query``
parameter and the body, ``FORMAT X`` at its end) runs in chDB over the data path given,
the URL parameters that are settings become the query's ``SETTINGS``, and the answer's
bytes go back in that format. Only what the client's connect and ``query_arrow`` use is
forwarded; the SQL, its execution and the Arrow answer are ClickHouse's own.

Run: ``python clickhouse_http.py DATA_PATH PORT SECONDS`` (loopback only; it stops by
itself after SECONDS).
"""

from __future__ import annotations

import re
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

#: URL parameters of the HTTP interface that are not query settings
NOT_SETTINGS = {"query", "database", "query_id", "session_id", "session_timeout", "compress",
                "decompress", "user", "password", "default_format", "wait_end_of_query",
                "enable_http_compression", "session_check", "client_protocol_version"}
_FORMAT = re.compile(r"\bFORMAT\s+(\w+)\s*$", re.I)
_SETTING = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def serve(path: str, port: int, seconds: float) -> None:
    from chdb import session

    engine = session.Session(path)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            url = urllib.parse.urlsplit(self.path)
            params = dict(urllib.parse.parse_qsl(url.query))
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
            query = f"{params.get('query', '')} {body}".strip()
            fmt = "TabSeparated"
            found = _FORMAT.search(query)
            if found:
                fmt, query = found.group(1), query[:found.start()]
            settings = {k: v for k, v in params.items()
                        if k not in NOT_SETTINGS and _SETTING.fullmatch(k)}
            if settings:
                query += " SETTINGS " + ", ".join(
                    f"{k} = {v if v.isdigit() else repr(v)}" for k, v in settings.items())
            try:
                if _SETTING.fullmatch(params.get("database", "")):
                    engine.query(f"USE {params['database']}")
                out, code = engine.query(query, fmt).bytes(), 200
            except Exception as exc:  # noqa: BLE001 - the engine's refusal is the answer
                out, code = str(exc).encode(), 500
            self.send_response(code)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("X-ClickHouse-Format", fmt)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        do_GET = do_POST

    server = HTTPServer(("127.0.0.1", port), Handler)
    threading.Timer(seconds, server.shutdown).start()
    print("ready", flush=True)
    server.serve_forever()
    engine.close()


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
