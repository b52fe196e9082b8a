# SPDX-License-Identifier: MIT
"""A real Prometheus server (Debian's /usr/bin/prometheus) on loopback scrapes three
`gpumeter daemon` agents, each on its own simulated machine, every second; the test then asks
Prometheus, through its HTTP API, what a user of the fleet would ask, and compares the answers
with the scenarios. One agent wants a bearer token, which Prometheus reads from a file.

Run alone with: ctest -L prometheus (or ctest -R integration.prometheus_server)."""

import json
import os
import re
import resource
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from gpumeter_testlib import GPUMETER, SOURCE_DIR, clean_env, scenario

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
PROMTOOL = shutil.which("promtool")
DASHBOARD = SOURCE_DIR / "examples" / "grafana" / "gpumeter-dashboard.json"
# Three machines whose GPU memory stays put while the test runs (lost-gpu's GPU 1 falls off
# the bus at t = 2 s, taking its process's memory with it).
AGENTS = ["dgx-8gpu", "flaky", "lost-gpu"]
TOKEN_AGENT = "flaky"
TIMEOUT_S = 90


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def expected_figures(name, lost_after_s=0.0):
    """GPUs, memory held (bytes) and users of a scenario whose processes hold constant memory,
    once its GPUs scheduled to be lost by `lost_after_s` are."""
    document = json.loads(scenario(name).read_text())
    lost = {f["device"] for f in document.get("faults", {}).get("lost", [])
            if f.get("at_s", 0) <= lost_after_s}
    memory, users = 0, set()
    for process in document.get("processes", []):
        if process["device"] in lost:
            continue
        memory += process["used_memory_bytes"]
        users.add(process["host"]["user"])
    return {"gpus": len(document["devices"]), "memory": memory, "users": users}


def http_get(url, token=None, timeout=5):
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.status, response.headers.get("Content-Type"), response.read().decode()


def served_port(process, deadline, logs):
    """The port in the daemon's "serving HTTP on http://127.0.0.1:PORT" line."""
    while time.monotonic() < deadline and process.alive():
        found = re.search(r"serving HTTP on http://127\.0\.0\.1:(\d+)",
                          process.log.read_text(errors="replace"))
        if found:
            return int(found.group(1))
        time.sleep(0.05)
    raise AssertionError(f"{process.name} did not say where it serves\n{logs()}")


class Process:
    """A child process whose output goes to a log file, shown when a test fails."""

    def __init__(self, name, argv, log_dir, env=None):
        self.name = name
        self.log = Path(log_dir) / f"{name}.log"
        self.handle = open(self.log, "w")
        self.popen = subprocess.Popen(argv, stdout=self.handle, stderr=subprocess.STDOUT,
                                      env=env)

    def alive(self):
        return self.popen.poll() is None

    def stop(self):
        if self.alive():
            self.popen.terminate()
            try:
                self.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=20)
        self.handle.close()

    def tail(self, lines=30):
        text = self.log.read_text(errors="replace").splitlines()
        return f"--- {self.name} (exit {self.popen.poll()}) ---\n" + "\n".join(text[-lines:])


def start_prometheus(tmp, jobs, **config):
    """A Prometheus in `tmp` scraping `jobs` (scrape configs) every second, with `config`'s
    other top-level keys (rule_files, ...); returns (its Process, its port)."""
    path = Path(tmp) / "prometheus.yml"
    # JSON is YAML: no YAML writer needed.
    path.write_text(json.dumps({"global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                                "scrape_configs": jobs, **config}, indent=2))
    port = free_port()
    process = Process("prometheus", [
        PROMETHEUS, f"--config.file={path}", f"--storage.tsdb.path={Path(tmp) / 'data'}",
        f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=1h"], tmp)
    return process, port


def relabelled_job(name, port, host):
    """A scrape job whose series get `host` as their host label: every daemon of a test runs
    on this one machine, where a fleet would have a host each."""
    return {"job_name": name, "scrape_interval": "1s", "scrape_timeout": "1s",
            "static_configs": [{"targets": [f"127.0.0.1:{port}"], "labels": {"machine": host}}],
            "metric_relabel_configs": [{"source_labels": ["machine"], "target_label": "host"}]}


class ChildProcesses:
    """A test class's child processes (cls.processes) and their folder (cls.tmp): stopped and
    removed after the class, their logs' tails shown when a test fails."""

    @classmethod
    def tearDownClass(cls):
        for process in cls.processes:
            process.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def logs(cls):
        return "\n".join(process.tail() for process in cls.processes)


@unittest.skipUnless(Path(PROMETHEUS).exists(), "prometheus is not installed "
                     "(scripts/install-deps.sh)")
class PrometheusScrapesAgents(ChildProcesses, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="gpumeter-prometheus-"))
        cls.processes = []
        cls.agents = {}
        try:
            cls.start_agents()
            cls.start_prometheus()
            cls.wait_for_targets()
        except Exception:
            cls.tearDownClass()
            raise

    @classmethod
    def start_agents(cls):
        token_file = cls.tmp / "token"
        token_file.write_text("agent-token-0123456789\n")
        token_file.chmod(0o600)
        for name in AGENTS:
            # Port 0: the daemon binds any free port and logs the URL it serves on.
            argv = [GPUMETER, "--simulate", scenario(name), "daemon", "--listen", "127.0.0.1:0",
                    "--state-dir", cls.tmp / name, "--record-interval", "1s",
                    "--socket", cls.tmp / f"{name}.sock"]
            token = None
            if name == TOKEN_AGENT:
                argv += ["--token-file", token_file]
                token = token_file.read_text().strip()
            process = Process(name, list(map(str, argv)), cls.tmp, clean_env())
            cls.processes.append(process)
            cls.agents[name] = {"process": process, "token": token}
        deadline = time.monotonic() + TIMEOUT_S
        for name, agent in cls.agents.items():
            agent["port"] = cls.served_port(agent["process"], deadline)
            url = f"http://127.0.0.1:{agent['port']}/metrics"
            while True:
                try:
                    if http_get(url, agent["token"])[0] == 200:
                        break
                except (urllib.error.URLError, ConnectionError, OSError):
                    pass  # 503 until the first round, or not listening yet
                if time.monotonic() > deadline:
                    raise AssertionError(f"agent {name} never served /metrics\n{cls.logs()}")
                time.sleep(0.1)

    @classmethod
    def served_port(cls, process, deadline):
        return served_port(process, deadline, cls.logs)

    @classmethod
    def start_prometheus(cls):
        token_file = cls.tmp / "token"
        jobs = []
        for name, agent in cls.agents.items():
            job = {"job_name": name, "scrape_interval": "1s", "scrape_timeout": "1s",
                   "static_configs": [{"targets": [f"127.0.0.1:{agent['port']}"],
                                       "labels": {"scenario": name}}]}
            if agent["token"]:
                job["authorization"] = {"type": "Bearer", "credentials_file": str(token_file)}
            jobs.append(job)
        process, cls.prometheus_port = start_prometheus(cls.tmp, jobs)
        cls.processes.append(process)

    @classmethod
    def api(cls, path, **params):
        url = f"http://127.0.0.1:{cls.prometheus_port}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        status, _, body = http_get(url)
        document = json.loads(body)
        if document.get("status") != "success":
            raise AssertionError(f"{url}: {body}")
        return document["data"]

    @classmethod
    def wait_for_targets(cls):
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                targets = cls.api("targets")["activeTargets"]
                if len(targets) == len(AGENTS) and all(t["health"] == "up" for t in targets):
                    return
            except (urllib.error.URLError, ConnectionError, OSError, json.JSONDecodeError):
                pass
            if not all(p.alive() for p in cls.processes):
                break
            time.sleep(0.2)
        raise AssertionError(f"the targets did not come up\n{cls.logs()}")

    def query(self, promql):
        return self.api("query", query=promql)["result"]

    def eventually(self, promql, check, what):
        """Queries until `check(result)` holds: a scrape may still be on its way."""
        deadline = time.monotonic() + 30
        while True:
            result = self.query(promql)
            if check(result) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        self.assertTrue(check(result), f"{what}: {promql} gave {result}\n{self.logs()}")
        return result

    def by_scenario(self, result):
        return {r["metric"]["scenario"]: float(r["value"][1]) for r in result}

    def test_counts_every_gpu_of_the_three_machines(self):
        total = sum(expected_figures(name)["gpus"] for name in AGENTS)
        self.eventually("count(gpumeter_gpu_info)",
                        lambda r: r and float(r[0]["value"][1]) == total, "GPUs")

    def test_memory_used_per_machine_matches_the_scenarios(self):
        expected = {name: float(expected_figures(name, lost_after_s=2)["memory"])
                    for name in AGENTS}
        self.eventually("sum by (scenario) (gpumeter_gpu_memory_used_bytes)",
                        lambda r: self.by_scenario(r) == expected, "memory per machine")

    def test_every_user_has_series(self):
        users = set()
        for name in AGENTS:
            users |= expected_figures(name, lost_after_s=2)["users"]
        result = self.eventually(
            "sum by (user) (gpumeter_user_gpu_memory_used_bytes)",
            lambda r: {x["metric"]["user"] for x in r} == users, "users")
        self.assertEqual(len(result), len(users))
        self.eventually("count(gpumeter_process_sm_utilization_ratio > 0.5)",
                        lambda r: r and float(r[0]["value"][1]) >= 3, "busy processes")

    def test_a_lost_gpu_is_down_and_the_rest_up(self):
        self.eventually('gpumeter_gpu_up{scenario="lost-gpu", gpu="1"}',
                        lambda r: len(r) == 1 and float(r[0]["value"][1]) == 0, "lost GPU")
        self.eventually("sum(gpumeter_gpu_up)",
                        lambda r: r and float(r[0]["value"][1]) == 11, "GPUs up")

    def test_every_agent_reports_its_health(self):
        self.eventually("count(rate(gpumeter_sampler_rounds_total[5s]) > 0)",
                        lambda r: r and float(r[0]["value"][1]) == len(AGENTS), "sampling")
        self.eventually('gpumeter_source_errors_total{source="gpu_process_utilization"} > 0',
                        lambda r: {x["metric"]["scenario"] for x in r} == {"flaky"},
                        "the flaky driver's failures")
        self.eventually('gpumeter_http_requests_total{code="200"} > 0',
                        lambda r: len(r) == len(AGENTS), "HTTP requests")

    def test_each_agent_reports_its_own_cost(self):
        """process_* under the names Prometheus' client libraries use: what /proc says of the
        daemon that answered."""
        ticks = os.sysconf("SC_CLK_TCK")
        boot = next(int(line.split()[1]) for line in
                    Path("/proc/stat").read_text().splitlines() if line.startswith("btime "))
        for name, agent in self.agents.items():
            pid = agent["process"].popen.pid
            # The CPU time is counted in clock ticks: a daemon that has used less than one
            # when first scraped reads 0, so the figures are taken once it has used some.
            result = self.eventually(
                f'{{scenario="{name}", __name__=~"process_.*"}}',
                lambda r: len(r) == 6 and any(
                    x["metric"]["__name__"] == "process_cpu_seconds_total"
                    and float(x["value"][1]) > 0 for x in r),
                f"{name}'s process families, with some CPU time")
            reported = {r["metric"]["__name__"]: float(r["value"][1]) for r in result}
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu_now = (int(stat[11]) + int(stat[12])) / ticks  # fields 14 and 15
            self.assertAlmostEqual(reported["process_start_time_seconds"],
                                   boot + int(stat[19]) / ticks, delta=0.02, msg=name)
            self.assertGreater(reported["process_cpu_seconds_total"], 0, name)
            self.assertLessEqual(reported["process_cpu_seconds_total"], cpu_now, name)
            rss = int(next(line.split()[1] for line in
                           Path(f"/proc/{pid}/status").read_text().splitlines()
                           if line.startswith("VmRSS:"))) * 1024
            self.assertAlmostEqual(reported["process_resident_memory_bytes"], rss,
                                   delta=rss * 0.25, msg=name)
            self.assertGreater(reported["process_virtual_memory_bytes"], rss, name)
            # The scrape's own connection and the listing come and go.
            self.assertAlmostEqual(reported["process_open_fds"],
                                   len(os.listdir(f"/proc/{pid}/fd")), delta=4, msg=name)
            self.assertEqual(reported["process_max_fds"],
                             resource.prlimit(pid, resource.RLIMIT_NOFILE)[0], name)

    def test_the_dashboards_queries_run(self):
        dashboard = json.loads(DASHBOARD.read_text())
        queries = []

        def collect(node):
            if isinstance(node, dict):
                if isinstance(node.get("expr"), str):
                    queries.append(node["expr"])
                for value in node.values():
                    collect(value)
            elif isinstance(node, list):
                for value in node:
                    collect(value)
        collect(dashboard)
        self.assertGreater(len(queries), 20)
        queries = [q.replace("$host", ".*").replace("$gpu", ".*").replace("$__range", "1h")
                   for q in queries]
        # A fan reading exists on none of the three machines; every other panel has data once
        # the history's first records were written and scraped.
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            empty = [q for q in queries if "fan" not in q and not self.query(q)]
            if not empty or time.monotonic() > deadline:
                break
            time.sleep(1)
        self.assertEqual(empty, [], self.logs())

    def test_the_agents_exposition_lints_clean(self):
        if PROMTOOL is None:
            self.skipTest("promtool is not installed")
        for name, agent in self.agents.items():
            status, content_type, body = http_get(
                f"http://127.0.0.1:{agent['port']}/metrics", agent["token"])
            self.assertEqual(content_type, "text/plain; version=0.0.4; charset=utf-8")
            checked = subprocess.run([PROMTOOL, "check", "metrics"], input=body,
                                     capture_output=True, text=True, timeout=60)
            self.assertEqual((checked.returncode, checked.stdout + checked.stderr), (0, ""),
                             name)

    def test_the_token_agent_refuses_a_scrape_without_it(self):
        agent = self.agents[TOKEN_AGENT]
        with self.assertRaises(urllib.error.HTTPError) as refused:
            http_get(f"http://127.0.0.1:{agent['port']}/metrics")
        self.assertEqual(refused.exception.code, 401)


if __name__ == "__main__":
    unittest.main()
