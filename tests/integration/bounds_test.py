# SPDX-License-Identifier: MIT
"""Nothing a request can ask makes the daemon slow or big: a real `gpumeter daemon` on the
8-GPU scenario, its own state directory and socket, asked over loopback HTTP and raw Unix
sockets for what once took it to gigabytes or tens of seconds (absurd times, long windows,
thousands of tasks with the largest labels, replies nobody reads, half-sent requests). Each
answer comes in a few seconds at most, with a clear error or a bounded reply, and the daemon's
resident memory (VmHWM, its peak) stays within a bound."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from gpumeter_testlib import GPUMETER, clean_env, daemon_http_port, scenario

MiB = 1 << 20
# Generous: the old daemon took 5 to 30 s over these; the new one answers in milliseconds.
PROMPT_S = 5.0
# The daemon's peak resident memory over the whole test. It held 9.2 GB after one history
# request, and 825 MB after the task-socket floods below; its task budgets (32 MiB for the
# registry, 32 MiB for the HTTP copy) and reply caps keep it far under this.
PEAK_RSS_BOUND = 160 * MiB
# What 1,024 open tasks with the largest labels may add: 4.4 KiB of labels each in the registry
# and in the HTTP copy, and one answer of 1,000 of them (about 4.5 MB of JSON). 42 MiB measured.
OPEN_TASKS_BOUND = 64 * MiB
# And eight readers of three such answers at once (about 70 MiB more than at start measured).
OPEN_TASKS_READERS_BOUND = 128 * MiB
# Memory figures mean something only without AddressSanitizer (tests/integration/CMakeLists.txt).
MEMORY_MEASURED = os.environ.get("GPUMETER_TEST_SANITIZED") != "1"
# The largest labels the socket accepts: 16 of them, keys and values 4 KiB together.
LABELS = {f"label-{i:02}": "v" * (256 - len(f"label-{i:02}")) for i in range(16)}


def memory_of(pid):
    """(VmRSS, VmHWM) of a process in bytes."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) * 1024
    return fields["VmRSS"], fields["VmHWM"]


class Client:
    def __init__(self, path, timeout=30):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.settimeout(timeout)
        self.socket.connect(path)
        self.reader = self.socket.makefile("rb")

    def ask(self, request):
        self.socket.sendall(json.dumps(request).encode() + b"\n")
        return json.loads(self.reader.readline())

    def closed_by_peer(self, within_s):
        """Reads until the daemon closes the connection; False if it is still open after."""
        deadline = time.monotonic() + within_s
        self.socket.settimeout(0.5)
        while time.monotonic() < deadline:
            try:
                if not self.socket.recv(1 << 20):
                    return True
            except socket.timeout:
                continue
            except ConnectionResetError:
                return True
        return False

    def close(self):
        self.reader.close()
        self.socket.close()


class DaemonTest(unittest.TestCase):
    """A daemon on the simulated DGX for the tests of a class, with its socket and HTTP port."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        root = Path(cls.dir.name)
        cls.socket_path = str(root / "gpumeter.sock")
        cls.log = root / "daemon.log"
        with cls.log.open("w") as log:
            cls.daemon = subprocess.Popen(
                [GPUMETER, "--simulate", scenario("dgx-8gpu"), "daemon", "--socket",
                 cls.socket_path, "--state-dir", str(root / "state"), "--listen",
                 "127.0.0.1:0", "--interval", "200ms", "--record-interval", "1s"],
                stdout=log, stderr=subprocess.STDOUT, env=clean_env())
        cls.port = daemon_http_port(cls.daemon, cls.log)
        deadline = time.monotonic() + 30
        while not os.path.exists(cls.socket_path) and time.monotonic() < deadline:
            time.sleep(0.05)
        # The history database exists after the first record.
        time.sleep(2)
        cls.baseline_rss, _ = memory_of(cls.daemon.pid)

    @classmethod
    def tearDownClass(cls):
        if cls.daemon.poll() is None:
            cls.daemon.kill()
        cls.daemon.wait()
        cls.dir.cleanup()

    def setUp(self):
        self.assertIsNone(self.daemon.poll(), self.log.read_text())

    def get(self, path, **params):
        """(status, document, seconds) of a GET."""
        url = f"http://127.0.0.1:{self.port}{path}?{urllib.parse.urlencode(params)}"
        started = time.monotonic()
        try:
            with urllib.request.urlopen(url, timeout=60) as reply:
                status, body = reply.status, reply.read()
        except urllib.error.HTTPError as error:
            status, body = error.code, error.read()
        return status, json.loads(body), time.monotonic() - started

    def assert_prompt(self, seconds, what):
        self.assertLess(seconds, PROMPT_S, f"{what} took {seconds:.1f} s")

    def assert_peak_bounded(self):
        if not MEMORY_MEASURED:
            return
        _, peak = memory_of(self.daemon.pid)
        self.assertLess(peak, PEAK_RSS_BOUND, f"peak RSS {peak / MiB:.0f} MiB")

    def begin_batch(self, worker, count):
        """The ids of up to `count` tasks begun at once. Tasks still ending count towards the
        process's 1,024: on a loaded machine the sampler lags, so a refused begin waits."""
        request = json.dumps({"op": "begin", "name": "n" * 256, "labels": LABELS}).encode()
        worker.socket.sendall((request + b"\n") * count)
        ids = []
        for _ in range(count):
            reply = json.loads(worker.reader.readline())
            if reply["ok"]:
                ids.append(reply["task"])
            else:
                self.assertEqual(reply["error"]["code"], "limit_reached", reply)
        if len(ids) < count:
            time.sleep(0.5)
        return ids


class BoundsTest(DaemonTest):
    def test_absurd_times_are_refused_at_once(self):
        for since in ("99999999999d", "@-99999999999", "2026-02-30 25:61", "0001-01-01T00:00Z",
                      "9223372036854775807s"):
            for path in ("/api/v1/history", "/api/v1/usage", "/api/v1/tasks",
                         "/api/v1/vgpu/series"):
                status, document, seconds = self.get(path, gpu="1", vgpu="1", since=since)
                self.assert_prompt(seconds, f"{path} since={since}")
                self.assertEqual(status, 400, (path, since, document))
                self.assertIn("since", document["error"])
                self.assertIn("1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z", document["error"])
        self.assert_peak_bounded()

    def test_the_longest_windows_get_bounded_answers(self):
        for metric in ("utilization_gpu_percent", "temperature_celsius"):
            status, document, seconds = self.get("/api/v1/history", gpu="1", metric=metric,
                                                 since="@0", until="9999-12-31T00:00:00Z")
            self.assert_prompt(seconds, f"history {metric} since 1970")
            self.assertEqual(status, 200, document)
            self.assertLessEqual(len(document["time"]), 721)
            self.assertEqual(document["step_seconds"] % 86400, 0)
        status, document, _ = self.get("/api/v1/history", gpu="1", since="@0", step="1s")
        self.assertEqual(status, 400)
        self.assertIn("more than 10000 buckets", document["error"])
        for by in ("user", "gpu,process,user", "process"):
            status, document, seconds = self.get("/api/v1/usage", by=by, bucket="hour",
                                                 since="@0")
            self.assert_prompt(seconds, f"usage by {by} since 1970")
            self.assertIn(status, (200, 503), document)
        self.assert_peak_bounded()

    def test_task_floods_and_unread_replies_stay_bounded(self):
        worker = Client(self.socket_path)
        status = worker.ask({"op": "status"})
        limits = status["limits"]
        self.assertEqual(limits["labels_bytes"], 4096)
        self.assertEqual(limits["reply_bytes"], MiB)
        # Over the labels' bytes: a clear error naming the limit.
        refused = worker.ask({"op": "begin", "name": "x",
                              "labels": {f"k{i:02}": "v" * 256 for i in range(16)}})
        self.assertFalse(refused["ok"])
        self.assertIn("4096 bytes together", refused["error"]["message"])
        # 12,000 tasks with the largest labels, each begun and ended.
        begun = 0
        while begun < 12_000:
            ids = self.begin_batch(worker, 500)
            worker.socket.sendall(b"".join(
                json.dumps({"op": "end", "task": task, "wait": False}).encode() + b"\n"
                for task in ids))
            for _ in ids:
                self.assertTrue(json.loads(worker.reader.readline())["ok"])
            begun += len(ids)
        time.sleep(3)  # the sampler passes the ends: every task settles
        counts = worker.ask({"op": "status"})["tasks"]
        self.assertGreater(counts["dropped"], 0, counts)
        self.assertLessEqual(counts["held_bytes"], limits["task_bytes"])
        self.assertLess(counts["retained"], 12_000)
        # What the retained tasks hold stays resident (they are kept to be queried): bounded.
        with_tasks, _ = memory_of(self.daemon.pid)
        if MEMORY_MEASURED:
            self.assertLess(with_tasks, self.baseline_rss + 110 * MiB,
                            f"{with_tasks / MiB:.0f} MiB with the tasks retained")

        # The largest query: one reply of at most 1 MiB, with a cursor to the rest.
        worker.socket.sendall(json.dumps({"op": "query", "limit": 10_000}).encode() + b"\n")
        line = worker.reader.readline()
        self.assertLessEqual(len(line), MiB)
        page = json.loads(line)
        self.assertTrue(page["truncated"])
        older = worker.ask({"op": "query", "limit": 10_000, "before": page["next"]})
        self.assertTrue(older["tasks"])
        self.assertLess(older["tasks"][-1]["task"], page["tasks"][0]["task"])
        # Over HTTP, pages of at most 1,000 tasks.
        status, document, seconds = self.get("/api/v1/tasks")
        self.assert_prompt(seconds, "/api/v1/tasks")
        self.assertEqual(len(document["tasks"]), 1000)
        self.assertTrue(document["truncated"])
        status, document, _ = self.get("/api/v1/tasks", limit="10000")
        self.assertEqual(status, 400)
        self.assertIn("limit", document["error"])

        # Ten clients that pipeline the largest queries and never read: each is dropped once
        # its unsent replies pass 4 MiB.
        greedy = [Client(self.socket_path) for _ in range(10)]
        request = json.dumps({"op": "query", "limit": 10_000}).encode() + b"\n"
        for client in greedy:
            client.socket.sendall(request * 32)
        for client in greedy:
            self.assertTrue(client.closed_by_peer(15), "a client that does not read was kept")
            client.close()
        self.assert_peak_bounded()
        # The daemon still answers, and gives the memory of the replies back.
        self.assertTrue(worker.ask({"op": "status"})["ok"])
        worker.close()
        rss, peak = memory_of(self.daemon.pid)
        print(f"daemon RSS: {self.baseline_rss / MiB:.0f} MiB at start, "
              f"{with_tasks / MiB:.0f} MiB with 12,000 tasks, peak {peak / MiB:.0f} MiB, "
              f"{rss / MiB:.0f} MiB after the unread replies", file=sys.stderr)
        # The replies' memory goes back, near what the retained tasks hold (the old daemon kept
        # 385 MB after the unread clients closed). What remains is the HTTP threads' heap after
        # the 1,000-task page (about 20 MiB), until the daemon's periodic heap trim.
        # On a loaded machine the replies' pages may still be resident when first read: the
        # daemon's heap trim, once a minute, gives them back.
        deadline = time.monotonic() + 70
        while MEMORY_MEASURED and rss >= with_tasks + 40 * MiB and time.monotonic() < deadline:
            time.sleep(1)
            rss, _ = memory_of(self.daemon.pid)
        if MEMORY_MEASURED:
            self.assertLess(rss, with_tasks + 40 * MiB,
                            f"RSS {rss / MiB:.0f} MiB from {with_tasks / MiB:.0f} MiB")

    def test_a_half_sent_request_is_dropped_after_the_stall_limit(self):
        client = Client(self.socket_path)
        client.socket.sendall(b'{"op": "sta')
        self.assertTrue(client.closed_by_peer(25), "a client that stalls mid-line was kept")
        client.close()
        idle = Client(self.socket_path)
        time.sleep(11)  # longer than the stall limit: an idle connection owes nothing
        self.assertTrue(idle.ask({"op": "status"})["ok"])
        idle.close()


class OpenTasksBounds(DaemonTest):
    """A daemon of its own: the task flood above leaves the peak where it left it."""

    def test_the_open_tasks_over_http_are_bounded(self):
        """A process holds as many open tasks with the largest labels as the daemon allows; the
        HTTP copy of them answers at most a page, promptly, within the memory bound, and lets
        them go when they end."""
        worker = Client(self.socket_path)
        ids = []
        while len(ids) < 1024:
            ids += self.begin_batch(worker, 1024 - len(ids))
        self.assertEqual(worker.ask({"op": "begin", "name": "x"})["error"]["code"],
                         "limit_reached")
        status, document, seconds = self.get("/api/v1/tasks", open="1", since="now")
        self.assert_prompt(seconds, "/api/v1/tasks?open=1")
        self.assertEqual(status, 200, document)
        self.assertEqual(len(document["open"]), 1000)
        self.assertEqual((document["open_matched"], document["open_truncated"]), (1024, True))
        self.assertEqual(document["open"][-1]["task"], ids[-1], "the latest begun are kept")
        # The open tasks in the registry and in the HTTP copy, and the answer: bounded.
        self.assert_peak_bounded()
        if MEMORY_MEASURED:
            _, peak = memory_of(self.daemon.pid)
            self.assertLess(peak, self.baseline_rss + OPEN_TASKS_BOUND,
                            f"peak RSS {peak / MiB:.0f} MiB from {self.baseline_rss / MiB:.0f}")
            print(f"daemon RSS: {self.baseline_rss / MiB:.0f} MiB at start, peak "
                  f"{peak / MiB:.0f} MiB with 1,024 open tasks and their answer", file=sys.stderr)
        # Eight readers at once, three pages each: the answers are built two at a time, and a
        # large one's memory goes back when it is sent (before, 8 x 5 such pages took the
        # daemon from 34 MB to 294 MB; now about 105 MB).
        answers = []

        def read_pages():
            for _ in range(3):
                answers.append(self.get("/api/v1/tasks", open="1", since="now")[:2])

        readers = [threading.Thread(target=read_pages) for _ in range(8)]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join()
        for answer_status, answer in answers:
            if answer_status == 503:  # a slow (sanitized) build may wait past the deadline
                self.assertIn("busy", answer["error"])
            else:
                self.assertEqual((answer_status, len(answer["open"])), (200, 1000))
        self.assertIn(200, [answer_status for answer_status, _ in answers])
        if MEMORY_MEASURED:
            _, peak = memory_of(self.daemon.pid)
            self.assertLess(peak, self.baseline_rss + OPEN_TASKS_READERS_BOUND,
                            f"peak RSS {peak / MiB:.0f} MiB from {self.baseline_rss / MiB:.0f}")
            print(f"daemon RSS: peak {peak / MiB:.0f} MiB after 8 readers of 3 pages each",
                  file=sys.stderr)
        # Ended a hundred at a time, as workers end theirs: a thousand settling in one round
        # is the task flood's burst, not this test's subject.
        deadline = time.monotonic() + 60
        for first in range(0, len(ids), 100):
            batch = ids[first:first + 100]
            worker.socket.sendall(b"".join(
                json.dumps({"op": "end", "task": task, "wait": False}).encode() + b"\n"
                for task in batch))
            for _ in batch:
                self.assertTrue(json.loads(worker.reader.readline())["ok"])
            left = len(ids) - first - len(batch)
            # limit=1: the count is all this needs, not a page of 4 KiB labels each time.
            while self.get("/api/v1/tasks", open="1", since="now",
                           limit="1")[1]["open_matched"] > left:
                self.assertLess(time.monotonic(), deadline, "ended tasks stayed in the open copy")
                time.sleep(0.1)
        worker.close()
        self.assert_peak_bounded()


class SlowQuery(unittest.TestCase):
    """A history query that runs past the daemon's --request-deadline is stopped: 503 naming
    the deadline, and the daemon goes on answering. A day of 50 processes' minutes (72,000
    intervals, written by the store's own writer) under a 10 ms deadline."""

    def test_a_query_past_the_deadline_is_stopped_with_503(self):
        directory = Path(tempfile.mkdtemp(prefix="gpumeter-slow-"))
        (directory / "state").mkdir()
        minute_us = 60_000_000
        day_start_us = (int(time.time()) // 86400 - 1) * 86400 * 1_000_000
        lines = "".join(
            json.dumps({"pid": 1000 + p, "gpu_uuid": f"GPU-{p % 8}", "gpu_index": p % 8,
                        "user": f"user-{p % 5}", "begin_us": day_start_us + m * minute_us,
                        "end_us": day_start_us + (m + 1) * minute_us, "held_seconds": 60,
                        "sm_busy_seconds": 30, "peak_memory_bytes": 1 << 30,
                        "energy_joules": 6000}) + "\n"
            for p in range(50) for m in range(1440))
        subprocess.run([os.environ["GPUMETER_HISTORY_WRITER"], directory / "state" / "gpumeter.db",
                        "--host", "slow-host"], input=lines, text=True, check=True, timeout=300)
        log = directory / "daemon.log"
        with open(log, "wb") as out:
            daemon = subprocess.Popen(
                [GPUMETER, "--simulate", scenario("dgx-8gpu"), "daemon", "--state-dir",
                 directory / "state", "--socket", directory / "task.sock", "--listen",
                 "127.0.0.1:0", "--request-deadline", "10ms"],
                stdout=out, stderr=subprocess.STDOUT, env=clean_env())
        self.addCleanup(daemon.wait)
        self.addCleanup(daemon.kill)
        port = daemon_http_port(daemon, log)

        def get(path):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as reply:
                    return reply.status, json.loads(reply.read())
            except urllib.error.HTTPError as error:
                return error.code, json.loads(error.read())

        started = time.monotonic()
        status, document = get("/api/v1/usage?by=process,user&bucket=hour&since=3d&host=slow-host")
        self.assertEqual(status, 503, document)
        self.assertEqual(document["error"], "history database: the query ran past the request's "
                         "0.01 s deadline and was stopped; ask for a shorter window")
        self.assertLess(time.monotonic() - started, PROMPT_S)
        # The daemon goes on serving; a sanitizer build on a loaded machine may still be in its
        # sampler's first round (503 "starting"), which is not the stopped query's doing.
        deadline = time.monotonic() + 60
        status, document = get("/api/v1/status")
        while status == 503 and "starting" in document.get("error", "") and \
                time.monotonic() < deadline:
            time.sleep(0.1)
            status, document = get("/api/v1/status")
        self.assertEqual(status, 200, document)
        self.assertEqual(len(document["gpus"]), 8)
        self.assertIsNone(daemon.poll())


if __name__ == "__main__":
    unittest.main()
