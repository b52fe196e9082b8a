# SPDX-License-Identifier: MIT
"""`gpumeter master` over a fleet of 1,000 fake agents on loopback, some of them hostile (headers
streamed forever, headers trickled one line every 0.5 s, an endless body, silence): the healthy
agents are polled every round and shown fresh, /healthz stays 200, the master's memory stays
bounded, the hostile agents are shown with a clear error, and SIGTERM ends the master at once,
even in the middle of a round that waits on agents with a long timeout, the first round (before
it serves) included."""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path

from agent_farm import KINDS, AgentFarm
from gpumeter_testlib import GPUMETER, clean_env, list_json

HOSTILE_EACH = 10
GOOD = 1000 - 4 * HOSTILE_EACH
# Bounds a loaded 2-core machine keeps; the client of old missed each of them (docs/master.md).
PEAK_RSS_LIMIT_MIB = 400  # ten endless answers cut at 16 MiB each, and the fleet's documents
# The master's round interval and per-agent timeout. A sanitizer build of the master does the
# same work several times slower beside the one Python thread that plays the agents: its
# rounds get twice the time (tests/integration/CMakeLists.txt), and so does its stop, which
# also waits for LeakSanitizer to scan the heap of a thousand agents' documents at exit (5.5 s
# once on a loaded 2-core machine).
SANITIZED = os.environ.get("GPUMETER_TEST_SANITIZED") == "1"
SCALE = 2 if SANITIZED else 1
INTERVAL_S, TIMEOUT_S = 4 * SCALE, 3 * SCALE
SIGTERM_LIMIT_SECONDS = 5 * SCALE  # the old client waited 15 s and more for a trickling agent


def http_get(url, timeout=10):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def peak_rss_mib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc/PID/status")


def write_config(folder, farm, interval, timeout, more_ports=None):
    lines = [f'interval = "{interval}"', f'timeout = "{timeout}"', "stale-after = 3"]
    for kind in KINDS:
        for number, port in enumerate(farm.ports[kind] + (more_ports or {}).get(kind, [])):
            lines += ["[[agent]]", f'name = "{kind}-{number}"', f'url = "http://127.0.0.1:{port}"']
    path = Path(folder) / "master.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


class Master:
    """`gpumeter master` serving on a free loopback port; its stderr is kept in `log`."""

    def __init__(self, config, wait_for_serving=True):
        self.process = subprocess.Popen(
            [GPUMETER, "master", "--config", str(config), "--listen", "127.0.0.1:0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=clean_env())
        self.log = []
        found = threading.Event()
        self.base = None

        def read():
            for line in self.process.stderr:
                self.log.append(line)
                match = re.search(r"on (http://127\.0\.0\.1:\d+)/api/v1/fleet", line)
                if match and self.base is None:
                    self.base = match.group(1)
                    found.set()
        self.reader = threading.Thread(target=read, daemon=True)
        self.reader.start()
        if wait_for_serving and not found.wait(60):
            self.kill()
            raise AssertionError(f"the master did not serve within 60 s: {''.join(self.log)}")

    def nodes(self):
        status, body = http_get(self.base + "/api/v1/fleet")
        assert status == 200, (status, body[:200])
        return {node["name"]: node for node in json.loads(body)["nodes"]}

    def stop(self):
        """Seconds from SIGTERM to the exit (None when it did not exit within 60 s)."""
        start = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            return None
        self.reader.join(10)
        return time.monotonic() - start

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.reader.join(10)
        self.process.stderr.close()


class HostileFarm:
    """The hostile agents in a process of their own (agent_farm.py run as a script): in the
    process that plays the 960 good agents, a loaded machine once kept a flood agent from
    even starting its answer within the timeout, behind the good agents' queue."""

    def __init__(self, each):
        arguments = [f"--{kind}={each}" for kind in KINDS if kind != "good"]
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("agent_farm.py")), *arguments],
            stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line:
            self.close()
            raise AssertionError("the hostile agents' farm did not start")
        self.ports = json.loads(line)

    def close(self):
        self.process.kill()
        self.process.wait()
        self.process.stdout.close()


class ThousandAgents(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.farm = AgentFarm({"good": GOOD}, list_json("workstation"))
        cls.hostile = HostileFarm(HOSTILE_EACH)
        cls.directory = tempfile.TemporaryDirectory()
        # The timeout leaves the one Python process that plays 960 good agents time to answer
        # them all on a loaded machine; the hostile ones cost the master no more than it.
        cls.master = Master(write_config(cls.directory.name, cls.farm, f"{INTERVAL_S}s",
                                         f"{TIMEOUT_S}s", cls.hostile.ports))

    @classmethod
    def tearDownClass(cls):
        cls.master.kill()
        cls.farm.close()
        cls.hostile.close()
        cls.directory.cleanup()

    def test_a_fleet_with_hostile_agents(self):
        master = self.master
        # Until every good agent was polled in 4 rounds and answered the last (4 intervals on an
        # idle machine; the deadline leaves room for a loaded one or a sanitizer build), asking
        # for health meanwhile.
        health = []
        start = time.monotonic()
        while True:
            health.append(http_get(master.base + "/healthz")[0])
            elapsed = time.monotonic() - start
            if elapsed > 4 * INTERVAL_S:
                nodes = master.nodes()
                all_ok = all(nodes[f"good-{n}"]["state"] == "ok" for n in range(GOOD))
                if (min(self.good_attempts(nodes)) >= 4 and all_ok) or elapsed > 90:
                    break
            time.sleep(0.5)
        rss = peak_rss_mib(master.process.pid)
        stopped_after = master.stop()

        self.assertEqual(set(health), {200}, health)
        self.check_good_agents(nodes)
        self.check_hostile_agents(nodes)
        if not SANITIZED:  # AddressSanitizer's quarantine keeps freed answers resident
            self.assertLess(rss, PEAK_RSS_LIMIT_MIB)
        self.assertIsNotNone(stopped_after, "the master did not stop within 60 s of SIGTERM")
        self.assertLess(stopped_after, SIGTERM_LIMIT_SECONDS)
        self.assertEqual(master.process.returncode, 0, "".join(master.log))

    @staticmethod
    def good_attempts(nodes):
        return [nodes[f"good-{n}"]["poll"]["attempts"] for n in range(GOOD)]

    def check_good_agents(self, nodes):
        good = [nodes[f"good-{n}"] for n in range(GOOD)]
        self.assertEqual({node["state"] for node in good}, {"ok"},
                         {node["error"] for node in good})
        # Under a sanitizer, beside the TSan and fuzzing builds on 2 cores, the one Python
        # process that plays 960 good agents now and then answers a poll after the timeout (a
        # clean-clone run saw one such poll in 4,000). Hostile agents stalling the master would
        # show as many good agents failing, or as agents not polled again since; so at most 1 %
        # may have failed once there, and every one must be fresh again. The plain build allows
        # none.
        failed = [node for node in good if node["poll"]["failures"] > 0]
        self.assertLessEqual(len(failed), GOOD // 100 if SANITIZED else 0,
                             [node["name"] for node in failed])
        steady = [node for node in good if node not in failed]
        attempts = {node["poll"]["attempts"] for node in steady}
        # Every round polled every good agent, a round every interval after the first: the counts
        # differ by one at most (the document may be read while a round's results go in).
        self.assertLessEqual(max(attempts) - min(attempts), 1, attempts)
        self.assertGreaterEqual(min(attempts), 4)
        for node in good:
            if node in steady:
                self.assertEqual(node["poll"]["skipped"], 0, node["name"])
            else:
                self.assertEqual(node["poll"]["failures"], 1, node["name"])
            self.assertLess(node["age_seconds"], 2 * INTERVAL_S, node["name"])

    def check_hostile_agents(self, nodes):
        expected = {
            "flood": {"garbage": r"headers over 65536 bytes"},
            "trickle": {"unreachable": rf"no whole answer within {TIMEOUT_S}s \(\d+ bytes came\)"},
            # Cut at the 16 MiB cap, or by the timeout first where the farm's one thread (or a
            # sanitizer build of the master) cannot move 16 MiB in 3 s: bounded either way.
            "endless": {"garbage": r"an answer over 16777216 bytes",
                        "unreachable": rf"no whole answer within {TIMEOUT_S}s \((\d+) bytes came\)"},
            "silent": {"unreachable": rf"no answer within {TIMEOUT_S}s"},
        }
        for kind, errors in expected.items():
            for number in range(HOSTILE_EACH):
                node = nodes[f"{kind}-{number}"]
                self.assertIn(node["state"], errors, node)
                match = re.fullmatch(errors[node["state"]], node["error"])
                self.assertIsNotNone(match, node)
                if match.groups():
                    self.assertLessEqual(int(match.group(1)), 16 << 20, node)
                self.assertIsNone(node["status"])
                self.assertGreater(node["poll"]["skipped"], 0, node)  # backoff holds it back


class StopMidRound(unittest.TestCase):
    """A round that waits on agents whose timeout is 10 s: SIGTERM ends it at once."""

    def test_sigterm_during_the_first_round(self):
        farm = AgentFarm({"good": 5, "silent": 2}, list_json("workstation"))
        with tempfile.TemporaryDirectory() as folder:
            master = Master(write_config(folder, farm, "10s", "10s"), wait_for_serving=False)
            try:
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and farm.open_connections("silent") < 2:
                    time.sleep(0.05)
                self.assertEqual(farm.open_connections("silent"), 2)
                stopped_after = master.stop()
            finally:
                master.kill()
                farm.close()
        self.assertIsNotNone(stopped_after, "the master did not stop within 60 s of SIGTERM")
        self.assertLess(stopped_after, SIGTERM_LIMIT_SECONDS)
        self.assertEqual(master.process.returncode, 0, "".join(master.log))
        self.assertIn("gpumeter master: stopping (SIGTERM)\n", master.log)
        self.assertIsNone(master.base, "it served before its first round ended")

    def test_sigterm_during_a_long_round(self):
        farm = AgentFarm({"good": 5, "silent": 2, "trickle": 2}, list_json("workstation"),
                         armed=False)
        with tempfile.TemporaryDirectory() as folder:
            master = Master(write_config(folder, farm, "10s", "10s"))
            try:
                farm.arm()
                # The next round starts 10 s after the first; it holds the hostile agents' polls.
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and (farm.open_connections("silent") < 2 or
                                                       farm.open_connections("trickle") < 2):
                    time.sleep(0.05)
                self.assertEqual(farm.open_connections("silent"), 2)
                stopped_after = master.stop()
            finally:
                master.kill()
                farm.close()
        self.assertIsNotNone(stopped_after, "the master did not stop within 60 s of SIGTERM")
        self.assertLess(stopped_after, SIGTERM_LIMIT_SECONDS)
        self.assertEqual(master.process.returncode, 0, "".join(master.log))
        self.assertIn("gpumeter master: stopping (SIGTERM)\n", master.log)


if __name__ == "__main__":
    unittest.main()
