# SPDX-License-Identifier: MIT
"""`gpumeter master --prometheus` against a real Prometheus server (Debian's
/usr/bin/prometheus) that scrapes real `gpumeter daemon` agents on simulated machines: the
fleet document it rebuilds from Prometheus must agree with what each agent serves itself on
/api/v1/status, and an agent that stops must show as unreachable with its last reading kept.

All agents run on this one machine, so their `host` labels would be the same: the scrape
config gives each its own with a metric relabelling, as a fleet of one-machine-per-host would
have them anyway. Run alone with: ctest -R integration.master_prometheus."""

import json
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from gpumeter_testlib import GPUMETER, clean_env, scenario
from prometheus_server_test import (PROMETHEUS, ChildProcesses, Process, http_get,
                                    relabelled_job, served_port, start_prometheus)

AGENTS = ["dgx-8gpu", "lost-gpu", "workstation"]
# Two more daemons whose series Prometheus labels with one host name (a cloned image, a name
# configured twice): two nodes, flagged, never merged. name -> scenario.
TWINS = {"twin-a": "workstation", "twin-b": "h100-mig"}
TWIN_HOST = "twin"
STOPPED = "workstation"
TIMEOUT_S = 90


@unittest.skipUnless(Path(PROMETHEUS).exists(), "prometheus is not installed "
                     "(scripts/install-deps.sh)")
class MasterReadsPrometheus(ChildProcesses, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="gpumeter-master-prometheus-"))
        cls.processes = []
        cls.agents = {}
        try:
            cls.start_agents()
            cls.start_prometheus()
            cls.config = cls.tmp / "master.toml"
            cls.config.write_text(f'interval = "1s"\nstale-after = 10\n'
                                  f'prometheus = "http://127.0.0.1:{cls.prometheus_port}"\n')
        except Exception:
            cls.tearDownClass()
            raise

    @classmethod
    def start_agents(cls):
        deadline = time.monotonic() + TIMEOUT_S
        for name in AGENTS + list(TWINS):
            argv = [GPUMETER, "--simulate", scenario(TWINS.get(name, name)), "daemon",
                    "--listen", "127.0.0.1:0",
                    "--history", "false", "--socket", cls.tmp / f"{name}.sock"]
            process = Process(name, list(map(str, argv)), cls.tmp, clean_env())
            cls.processes.append(process)
            cls.agents[name] = {"process": process,
                                "port": cls.served_port(process, deadline)}
        for name, agent in cls.agents.items():
            while True:
                try:
                    if http_get(f"http://127.0.0.1:{agent['port']}/healthz")[0] == 200:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise AssertionError(f"agent {name} never became healthy\n{cls.logs()}")
                time.sleep(0.1)

    @classmethod
    def served_port(cls, process, deadline):
        return served_port(process, deadline, cls.logs)

    @classmethod
    def start_prometheus(cls):
        jobs = [relabelled_job(name, agent["port"], TWIN_HOST if name in TWINS else name)
                for name, agent in cls.agents.items()]
        process, cls.prometheus_port = start_prometheus(cls.tmp, jobs)
        cls.processes.append(process)

    def fleet(self):
        result = subprocess.run([GPUMETER, "master", "--config", str(self.config), "--once"],
                                capture_output=True, text=True, env=clean_env(), timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(result.stdout)

    def eventually(self, check, what):
        """The fleet document once `check(nodes by name)` holds: scrapes take a while."""
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            document = self.fleet()
            nodes = {node["name"]: node for node in document["nodes"]}
            if check(nodes) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        self.assertTrue(check(nodes), f"{what}: {json.dumps(document)[:2000]}\n{self.logs()}")
        return document, nodes

    def agent_status(self, name):
        _, _, body = http_get(f"http://127.0.0.1:{self.agents[name]['port']}/api/v1/status")
        return json.loads(body)

    def test_1_every_machine_with_what_its_agent_says(self):
        document, nodes = self.eventually(
            lambda n: all(n.get(a, {}).get("state") == "ok" for a in AGENTS), "all ok")
        self.assertEqual(document["source"], "prometheus")
        self.assertIsNone(document["error"])
        for name in AGENTS:
            rebuilt = nodes[name]["status"]
            served = self.agent_status(name)
            self.assertEqual(rebuilt["source"], "prometheus")
            self.assertEqual(nodes[name]["url"], f"127.0.0.1:{self.agents[name]['port']}")
            self.assertEqual([g["uuid"] for g in rebuilt["gpus"]],
                             [g["uuid"] for g in served["gpus"]], name)
            for mine, theirs in zip(rebuilt["gpus"], served["gpus"]):
                self.assertEqual(mine["index"], theirs["index"])
                self.assertEqual(mine["name"], theirs["name"])
                self.assertEqual(mine["memory_total_bytes"], theirs["memory_total_bytes"])
                self.assertEqual(mine["lost"], theirs["lost"], (name, mine["index"]))
                if not theirs["lost"]:
                    self.assertEqual(mine["memory_used_bytes"], theirs["memory_used_bytes"],
                                     (name, mine["index"]))
                    self.assertEqual(sorted(mine["users"]), sorted(theirs["users"]),
                                     (name, mine["index"]))
            self.assertEqual(rebuilt["driver"]["driver_version"],
                             served["driver"]["driver_version"])

    def test_3_two_targets_with_one_host_name_are_two_flagged_nodes(self):
        names = {name: f"{TWIN_HOST} (127.0.0.1:{self.agents[name]['port']})" for name in TWINS}
        document, nodes = self.eventually(
            lambda n: all(n.get(node, {}).get("state") == "ok" for node in names.values()),
            "both twins ok")
        self.assertNotIn(TWIN_HOST, nodes)
        for name, node in names.items():
            self.assertEqual(len(nodes[node]["status"]["gpus"]),
                             len(self.agent_status(name)["gpus"]), name)
            others = [other for other in names.values() if other != node]
            self.assertEqual(nodes[node]["same_host_as"], others)
        self.assertEqual(nodes["dgx-8gpu"]["same_host_as"], [])

    def test_2_a_stopped_agent_is_unreachable_and_keeps_its_reading(self):
        self.eventually(lambda n: n.get(STOPPED, {}).get("state") == "ok", "the agent up")
        self.agents[STOPPED]["process"].stop()
        _, nodes = self.eventually(lambda n: n[STOPPED]["state"] == "unreachable",
                                   "the stopped agent unreachable")
        stopped = nodes[STOPPED]
        self.assertEqual(stopped["error"], f"Prometheus cannot scrape 127.0.0.1:"
                                           f"{self.agents[STOPPED]['port']} (up is 0)")
        # Each --once run is a new master: it never saw a good reading of the stopped agent.
        self.assertIsNone(stopped["status"])
        self.assertEqual(nodes["dgx-8gpu"]["state"], "ok")


if __name__ == "__main__":
    unittest.main()
