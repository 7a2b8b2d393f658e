"""A webhook receiver that answers 204 at once (benchmarks): it counts deliveries and
measures each one's lag, receipt time minus the event's own `timestamp`.

    python bench/reference/receiver.py PORT      # GET /stats: {"count", "distinct", "lags_ms"}
"""

from __future__ import annotations

import json
import sys
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
SEEN: list[str] = []
LAGS: list[float] = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        now = time.time()
        stamp = json.loads(raw)["timestamp"]
        lag = now - datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        with LOCK:
            SEEN.append(self.headers.get("webhook-id", ""))
            LAGS.append(lag * 1000)
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        with LOCK:
            body = json.dumps({"count": len(SEEN), "distinct": len(set(SEEN)), "lags_ms": LAGS}).encode()
        if self.path == "/reset":
            with LOCK:
                SEEN.clear()
                LAGS.clear()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


if __name__ == "__main__":
    ThreadingHTTPServer.request_queue_size = 512  # 16+ senders connecting at once
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    server.serve_forever()
