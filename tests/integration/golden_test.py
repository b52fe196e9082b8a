# SPDX-License-Identifier: MIT
"""Golden outputs: what `list` (table, JSON, Prometheus), `info`, `vgpu`, `report` (table,
CSV, JSON) and `tasks` (table, JSON) print for fixed scenarios at a fixed moment, byte for byte
against the files in tests/golden/. A change to any of them shows as a diff here, to be read and then accepted with

    scripts/update-golden.sh

The moment is fixed for the whole gpumeter process (its clock and the simulated library's,
which read the same system clock) by Debian's libfaketime, with the monotonic clock left real
so that waits still end. The machine's host name, which no scenario sets, is written as
HOST; the history database's path as HISTORY.db.

`tasks` asks a running daemon: here a socket that answers its `query` with a reply a real
daemon gave (tasks_reply.json: a worker's tasks on the simulated workstation, ended, open,
abandoned, on two GPUs and on none), so that only the rendering is under test."""

import json
import os
import re
import shutil
import socket
import sys
import tempfile
import threading
import unittest
from pathlib import Path

import gpumeter_testlib as lib
import report_timeline as timeline

GOLDEN = lib.SOURCE_DIR / "tests" / "golden"
FAKETIME = next((p for p in ("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
                             "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1")
                 if Path(p).exists()), None)
UPDATE = os.environ.get("GPUMETER_GOLDEN_UPDATE") == "1"
MOMENT = "2027-01-15 12:00:00"  # the fixed clock, UTC: 1800014400 s since the Unix epoch
MOMENT_US = 1_800_014_400_000_000
EPOCH_US = MOMENT_US - 4 * 3600 * 1_000_000  # the scenarios' clock reads t = 4 h
NOVEMBER = ("--since", "2026-11-01", "--until", "2026-12-01")
TASKS = "tasks"  # the cases that ask the task socket
TASKS_REPLY = Path(__file__).resolve().parent / "tasks_reply.json"

# name: (scenario or None for the history, gpumeter's arguments)
CASES = {
    "list-dgx-8gpu.txt": ("dgx-8gpu", ["list"]),
    "list-dgx-8gpu.json": ("dgx-8gpu", ["list", "--json"]),
    "list-dgx-8gpu.prom": ("dgx-8gpu", ["list", "--prometheus"]),
    "list-h100-mig.txt": ("h100-mig", ["list"]),
    "list-h100-mig.json": ("h100-mig", ["list", "--json"]),
    "list-vgpu-host.txt": ("vgpu-host", ["list"]),
    "vgpu-vgpu-host.txt": ("vgpu-host", ["vgpu"]),
    "info-workstation.txt": ("workstation", ["info"]),
    "report-november.txt": (None, ["report", *NOVEMBER]),
    "report-november-by-gpu.txt": (None, ["report", *NOVEMBER, "--by", "gpu"]),
    "report-november.csv": (None, ["report", *NOVEMBER, "--format", "csv"]),
    "report-november.json": (None, ["report", *NOVEMBER, "--format", "json"]),
    "tasks.txt": (TASKS, ["tasks"]),
    "tasks.json": (TASKS, ["tasks", "--json"]),
}


class TaskSocket:
    """A daemon's task socket that answers every request with one fixed reply line, and keeps
    the requests it read."""

    def __init__(self, path, reply):
        self.reply = (json.dumps(reply, separators=(",", ":")) + "\n").encode()
        self.requests = []
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(path))
        self.server.listen()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return  # closed
            with connection:
                line = b""
                while not line.endswith(b"\n"):
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    line += chunk
                self.requests.append(json.loads(line))
                connection.sendall(self.reply)

    def close(self):
        self.server.close()


def environment():
    env = lib.clean_env(TZ="UTC0", GPUMETER_SIM_EPOCH_US=EPOCH_US, COLUMNS=120,
                        LD_PRELOAD=FAKETIME, FAKETIME=MOMENT, DONT_FAKE_MONOTONIC=1,
                        # The ASan build checks that its runtime loads first; libfaketime
                        # does not touch memory allocation.
                        ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") +
                        ":verify_asan_link_order=0")
    env.pop("GPUMETER_DATABASE", None)
    return env


def neutral(name, text, hostname, database):
    """The output with what depends on the machine written as HOST and HISTORY.db; JSON
    indented (one line would diff as one line), in gpumeter's key order."""
    if name.endswith(".json"):
        def walk(node, key=None):
            if isinstance(node, dict):
                return {k: walk(v, k) for k, v in node.items()}
            if isinstance(node, list):
                return [walk(v) for v in node]
            if key in ("host", "hostname") and node == hostname:
                return "HOST"
            return "HISTORY.db" if node == str(database) else node
        return json.dumps(walk(json.loads(text)), indent=1, ensure_ascii=False) + "\n"
    text = text.replace(str(database), "HISTORY.db")
    text = text.replace(f'host="{hostname}"', 'host="HOST"')
    return re.sub(rf"^{re.escape(hostname)}(?=  )", "HOST", text, flags=re.MULTILINE)


@unittest.skipUnless(FAKETIME, "libfaketime is not installed (scripts/install-deps.sh)")
class GoldenOutputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Path(tempfile.mkdtemp(prefix="gpumeter-golden-"))
        cls.db = cls.dir / "history.db"
        timeline.write_history(cls.db, timeline.intervals())
        cls.hostname = os.uname().nodename
        cls.tasks = TaskSocket(cls.dir / "task.sock", json.loads(TASKS_REPLY.read_text()))

    @classmethod
    def tearDownClass(cls):
        cls.tasks.close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def output(self, name):
        scenario, args = CASES[name]
        if scenario == TASKS:
            prefix, suffix = [], ["--socket", self.dir / "task.sock"]
        elif scenario:
            prefix, suffix = ["--simulate", lib.scenario(scenario)], []
        else:
            prefix, suffix = [], ["--database", self.db]
        result = lib.run(*prefix, *args, *suffix, env=environment())
        self.assertEqual(result.returncode, 0, f"{name}: {result.stderr}")
        return neutral(name, result.stdout, self.hostname, self.db)

    def test_every_output_matches_its_golden_file(self):
        stale = sorted(p.name for p in GOLDEN.glob("*") if p.name not in CASES)
        self.assertEqual(stale, [], "golden files no case writes (remove them)")
        for name in CASES:
            with self.subTest(name):
                got = self.output(name)
                path = GOLDEN / name
                if UPDATE:
                    path.write_text(got)
                    continue
                self.assertTrue(path.exists(), f"{path} is missing: scripts/update-golden.sh")
                self.assertEqual(got, path.read_text(),
                                 f"{name} changed: read the diff, then scripts/update-golden.sh")

    def test_tasks_asks_for_the_window_it_is_given(self):
        # `--since 10m` becomes the moment ten minutes before the fixed clock; without it, the
        # query asks for every task the daemon keeps.
        del self.tasks.requests[:]
        lib.run("tasks", "--since", "10m", "--socket", self.dir / "task.sock",
                env=environment(), check=True)
        lib.run("tasks", "--socket", self.dir / "task.sock", env=environment(), check=True)
        since, every = self.tasks.requests
        self.assertEqual(since, {"op": "query", "v": 1, "limit": 10000,
                                 "since_time_us": MOMENT_US - 600_000_000})
        self.assertEqual(every, {"op": "query", "v": 1, "limit": 10000})

    def test_the_clock_is_fixed(self):
        # Two runs a moment apart print the same bytes: nothing real-time leaks in.
        first = self.output("list-dgx-8gpu.json")
        self.assertEqual(self.output("list-dgx-8gpu.json"), first)
        self.assertEqual(json.loads(first)["time_us"], MOMENT_US)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
