# SPDX-License-Identifier: MIT
"""A fake `gpumeter daemon` for the client tests: it speaks the task protocol on a Unix socket
in a thread, records every request, and answers with canned records, so that the clients can
be tested without a GPU, a simulator or the real daemon.

Like the real daemon it stamps each request when it reads it (`received`: time.monotonic()
of each recorded request), carries out requests behind a delayed `end` at once and keeps
the replies in request order (`end_delay`: seconds an `end` that waits holds its reply), and
checks the `rusage` key of begin and end. `status` names the daemon by pid and start time,
which a new FakeDaemon on the same path changes, as a restarted daemon does. `unknown_keys`
makes it refuse those keys as an older daemon refuses keys it does not define.

Run as a script (`fake_daemon.py [--refuse=OP:CODE] -- COMMAND ...`) it serves on a temporary
socket while COMMAND runs, with GPUMETER_SOCKET naming it and `{socket}` in COMMAND replaced by
it, and exits with COMMAND's status: the C and C++ consumer tests run under it.
"""

import itertools
import json
import os
import queue
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

USAGE = {
    "gpus": [{"index": 0, "uuid": "GPU-fake", "sm_percent": 42.5, "sm_busy_seconds": 0.5,
              "memory_peak_bytes": 1073741824, "energy_joules": 12.25, "coverage": 1.0,
              "low_confidence": False, "unavailable": {}}],
    "host": {"cpu_user_seconds": 0.25, "cpu_system_seconds": 0.05,
             "peak_rss_bytes": 2097152, "complete": True, "unavailable": {}},
}


_STARTS = itertools.count()


class FakeDaemon:
    """Serves until stop(). `refuse` maps an op to an error code it answers with instead."""

    def __init__(self, path=None, refuse=None, end_delay=0.0, unknown_keys=(), first_task=1):
        self.directory = tempfile.mkdtemp()
        self.path = path or os.path.join(self.directory, "gpumeter.sock")
        self.refuse = refuse or {}
        self.end_delay = end_delay
        self.unknown_keys = set(unknown_keys)
        self.start_time_us = time.time_ns() // 1000 + next(_STARTS)  # distinct for each start
        self.requests = []
        self.received = []  # time.monotonic() when each of `requests` was read
        self._peer = threading.local()  # the pid of the connection a serving thread reads
        self.open_tasks = {}
        self.next_task = first_task
        self.connections = []
        self.stopped = False
        self.lock = threading.Lock()  # stop() against a connection being accepted
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(8)
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def stop(self):
        """Stops like a daemon that exits: the socket goes, and so do its connections."""
        with self.lock:
            self.stopped = True
            self.listener.close()
            for connection in self.connections:
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # the client closed it already
        if os.path.exists(self.path):
            os.unlink(self.path)

    def _accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                if self.stopped:
                    connection.close()
                    return
                self.connections.append(connection)
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection):
        # Replies go out in request order from a writer thread, each no sooner than its time,
        # so that a delayed `end` holds back the replies behind it but not their requests.
        replies = queue.Queue()
        writer = threading.Thread(target=self._write, args=(connection, replies), daemon=True)
        writer.start()
        self._peer.pid = struct.unpack("3i", connection.getsockopt(
            socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))[0]
        with connection, connection.makefile("rb") as reader:
            for line in reader:
                if not line.strip():
                    continue
                reply = self.answer(line)
                delay = self.end_delay if _waits(reply) else 0.0
                replies.put((time.monotonic() + delay, (json.dumps(reply) + "\n").encode()))
            replies.put(None)
            writer.join()

    @staticmethod
    def _write(connection, replies):
        while (item := replies.get()) is not None:
            due, data = item
            time.sleep(max(0.0, due - time.monotonic()))
            try:
                connection.sendall(data)
            except OSError:
                return  # the client went away

    def answer(self, line):
        try:
            request = json.loads(line)
        except ValueError:
            return error_reply(None, "bad_request", "not JSON")
        self.requests.append(request)
        self.received.append(time.monotonic())
        op = request.get("op")
        if op in self.refuse:
            return error_reply(request.get("id"), self.refuse[op], "refused by the fake")
        handler = {"begin": self._begin, "end": self._end, "status": self._status}.get(op)
        if handler is None:
            return error_reply(request.get("id"), "unknown_op", f"unknown op {op!r}")
        problem = self._bad_keys(request, getattr(self._peer, "pid", None))
        if problem:
            return error_reply(request.get("id"), "bad_request", problem)
        reply = handler(request)
        if "id" in request:
            reply["id"] = request["id"]
        return reply

    def _bad_keys(self, request, peer_pid):
        for key in self.unknown_keys & request.keys():
            return f'unknown key "{key}" for op "{request["op"]}"'
        if "rusage" not in request:
            return None
        if request["op"] not in ("begin", "end"):
            return f'unknown key "rusage" for op "{request["op"]}"'
        rusage = request["rusage"]
        if (not isinstance(rusage, dict) or set(rusage) != {"user_us", "system_us"}
                or not all(type(v) is int and v >= 0 for v in rusage.values())):
            return '"rusage" must be {"user_us":U,"system_us":S} with integers >= 0'
        if request.get("pid", peer_pid) != peer_pid:
            return '"rusage" is the caller\'s own CPU time; it cannot come with another "pid"'
        return None

    def requests_of(self, op):
        """The recorded requests of one op, with the time each was read, oldest first."""
        return [(r, t) for r, t in zip(self.requests, self.received) if r.get("op") == op]

    def _begin(self, request):
        task = self.next_task
        self.next_task += 1
        self.open_tasks[task] = request
        return {"v": 1, "ok": True, "task": task, "pid": os.getpid(),
                "begin_time_us": 1714565000000000}

    def _end(self, request):
        begun = self.open_tasks.pop(request.get("task"), None)
        if begun is None:
            return error_reply(request.get("id"), "unknown_task", "no open task")
        wait = request.get("wait", True)
        return {"v": 1, "ok": True, "task": request["task"], "name": begun["name"],
                "labels": begun.get("labels", {}), "pid": os.getpid(),
                "state": "ended" if wait else "ending", "abandoned": False,
                "begin_time_us": 1714565000000000, "end_time_us": 1714565001200000,
                "duration_seconds": 1.2, "usage": USAGE if wait else None,
                "rusage_at_begin": begun.get("rusage"), "rusage_at_end": request.get("rusage")}

    def _status(self, request):
        return {"v": 1, "ok": True, "daemon": {"version": "fake", "pid": os.getpid(),
                                               "start_time_us": self.start_time_us}}


def _waits(reply):
    return isinstance(reply, dict) and reply.get("ok") and reply.get("state") == "ended"


def error_reply(request_id, code, message):
    reply = {"v": 1, "ok": False, "error": {"code": code, "message": message}}
    if request_id is not None:
        reply["id"] = request_id
    return reply


def main(argv):
    refuse = {}
    if argv[0].startswith("--refuse="):
        op, _, code = argv.pop(0)[len("--refuse="):].partition(":")
        refuse[op] = code
    daemon = FakeDaemon(refuse=refuse)
    command = [part.replace("{socket}", daemon.path) for part in argv[argv.index("--") + 1:]]
    try:
        return subprocess.call(command, env={**os.environ, "GPUMETER_SOCKET": daemon.path})
    finally:
        daemon.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
