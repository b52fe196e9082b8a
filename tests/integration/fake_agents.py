# SPDX-License-Identifier: MIT
"""Fake agents for the master's end-to-end tests: small HTTP servers on loopback, each
answering GET /api/v1/status its own way (a real status document, a wrong token, garbage,
too late), in threads of the test process."""

import http.server
import json
import socket
import threading
import time


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the name http.server calls)
        self.server.requests += 1
        status, body, content_type = self.server.answer(self)
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        if status == 401:
            self.send_header("WWW-Authenticate", "Bearer")
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the master gave up waiting (the slow agent): what the test wants

    def log_message(self, *args):
        pass


class FakeAgent:
    """An HTTP server on 127.0.0.1 whose answer(handler) returns (status, body, type)."""

    def __init__(self, answer):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        self.server.answer = answer
        self.server.requests = 0
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def requests(self):
        return self.server.requests

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def serves(body, token=None):
    """A good agent (with a token: only for requests that carry it)."""
    def answer(handler):
        if token is not None and handler.headers.get("Authorization") != f"Bearer {token}":
            return 401, '{"error":"missing or wrong token"}', "application/json"
        return 200, body, "application/json"
    return answer


def live(document):
    """A good agent whose every answer is a new reading: `document` with time_us now, as a
    daemon's status moves on each round (a reading that never changes turns stale on the
    master after a few of its intervals)."""
    def answer(handler):
        return 200, json.dumps({**document, "time_us": time.time_ns() // 1000}), "application/json"
    return answer


def garbage(handler):
    return 200, "<html><body>It works!</body></html>", "text/html"


def slow(seconds, body):
    def answer(handler):
        time.sleep(seconds)
        return 200, body, "application/json"
    return answer


def closed_port():
    """A loopback port with nothing listening on it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
