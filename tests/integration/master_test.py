# SPDX-License-Identifier: MIT
"""`gpumeter master` end to end: the real binary polls fake agents over real HTTP (one good,
one with a token, one refusing the token, one answering garbage, one too slow, one down) and
this machine through the simulated library; `--once` prints the fleet document, and served,
GET /api/v1/fleet gives it behind the master's own token."""

import json
import re
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path

from fake_agents import FakeAgent, closed_port, garbage, live, serves, slow
from gpumeter_testlib import GPUMETER, SCHEMAS, clean_env, list_json, scenario, run


def validate_fleet_schema(document):
    import jsonschema  # Debian's python3-jsonschema
    fleet = json.loads((SCHEMAS / "fleet.schema.json").read_text())
    listing = json.loads((SCHEMAS / "list.schema.json").read_text())
    try:
        from referencing import Registry, Resource  # jsonschema 4.18 and later
        registry = Registry().with_resource(listing["$id"], Resource.from_contents(listing))
        validator = jsonschema.Draft202012Validator(fleet, registry=registry)
    except ImportError:
        resolver = jsonschema.RefResolver.from_schema(fleet, store={listing["$id"]: listing})
        validator = jsonschema.Draft202012Validator(fleet, resolver=resolver)
    validator.validate(document)


class MasterOnce(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.status = json.dumps(list_json("dgx-8gpu"))
        cls.directory = tempfile.TemporaryDirectory()
        cls.folder = Path(cls.directory.name)
        for name, token in (("gpu02.token", "s3cret\n"), ("wrong.token", "guess\n")):
            (cls.folder / name).write_text(token)
            (cls.folder / name).chmod(0o600)
        cls.agents = {
            "good": FakeAgent(serves(cls.status)),
            "with-token": FakeAgent(serves(cls.status, token="s3cret")),
            "wrong-token": FakeAgent(serves(cls.status, token="s3cret")),
            "garbage": FakeAgent(garbage),
            "slow": FakeAgent(slow(3, cls.status)),
        }

    @classmethod
    def tearDownClass(cls):
        for agent in cls.agents.values():
            agent.close()
        cls.directory.cleanup()

    def write_config(self, text):
        path = self.folder / "master.toml"
        path.write_text(text)
        return path

    def fleet_config(self):
        agents = self.agents
        return self.write_config(f"""
interval = "2s"
timeout = "500ms"

[[agent]]
url = "self"
name = "master"

[[agent]]
name = "good"
url = "{agents['good'].url}"

[[agent]]
name = "with-token"
url = "{agents['with-token'].url}/"
token-file = "gpu02.token"

[[agent]]
name = "wrong-token"
url = "{agents['wrong-token'].url}"
token-file = "{self.folder / 'wrong.token'}"

[[agent]]
name = "garbage"
url = "{agents['garbage'].url}"

[[agent]]
name = "slow"
url = "{agents['slow'].url}"

[[agent]]
name = "down"
url = "http://127.0.0.1:{closed_port()}"
""")

    def test_every_agent_classified(self):
        result = run("--simulate", scenario("workstation"), "master", "--config",
                     self.fleet_config(), "--once", check=True)
        document = json.loads(result.stdout)
        validate_fleet_schema(document)
        self.assertEqual(document["source"], "agents")
        nodes = {node["name"]: node for node in document["nodes"]}
        self.assertEqual([node["name"] for node in document["nodes"]],
                         ["master", "good", "with-token", "wrong-token", "garbage", "slow",
                          "down"])
        states = {name: node["state"] for name, node in nodes.items()}
        self.assertEqual(states, {"master": "ok", "good": "ok", "with-token": "ok",
                                  "wrong-token": "unauthorized", "garbage": "garbage",
                                  "slow": "unreachable", "down": "unreachable"})
        self.assertEqual(nodes["master"]["url"], "self")
        self.assertEqual(nodes["master"]["status"]["source"], "nvml (simulated: workstation.json)")
        self.assertEqual(len(nodes["good"]["status"]["gpus"]), 8)
        self.assertEqual(nodes["wrong-token"]["error"], "HTTP 401: the agent refused the token")
        self.assertEqual(nodes["garbage"]["error"], "not JSON (at byte 1)")
        self.assertEqual(nodes["slow"]["error"], "no answer within 0.5s")
        self.assertEqual(nodes["down"]["error"],
                         "cannot connect (refused, or no route to the host)")
        for name in ("wrong-token", "garbage", "slow", "down"):
            self.assertIsNone(nodes[name]["status"], name)
            self.assertIsNone(nodes[name]["age_seconds"], name)
            self.assertEqual(nodes[name]["poll"],
                             {"attempts": 1, "failures": 1, "skipped": 0,
                              "consecutive_failures": 1}, name)

    def test_self_without_a_driver_is_unreachable_and_the_rest_carries_on(self):
        config = self.write_config(f"""
[[agent]]
url = "self"
name = "master"
[[agent]]
url = "{self.agents['good'].url}"
name = "good"
""")
        result = run("master", "--config", config, "--once", check=True)
        nodes = {node["name"]: node for node in json.loads(result.stdout)["nodes"]}
        self.assertEqual(nodes["master"]["state"], "unreachable")
        self.assertIn("NVML", nodes["master"]["error"])
        self.assertEqual(nodes["good"]["state"], "ok")

    def test_an_nvgpu_cluster_config_from_its_variable(self):
        # nvgpu's master reads AGENTS from the file $NVGPU_CLUSTER_CFG names; so does this one.
        config = self.write_config(f"""AGENTS = [
         'self', # this machine, read directly
         '{self.agents['good'].url}',
]
""")
        env = clean_env(NVGPU_CLUSTER_CFG=config)
        result = run("--simulate", scenario("workstation"), "master", "--once", env=env,
                     check=True)
        nodes = json.loads(result.stdout)["nodes"]
        self.assertEqual([node["state"] for node in nodes], ["ok", "ok"])
        self.assertEqual(nodes[0]["url"], "self")
        self.assertEqual(len(nodes[1]["status"]["gpus"]), 8)
        neither = run("master", "--once", env=clean_env())
        self.assertEqual(neither.returncode, 2)
        self.assertIn("--config FILE is required", neither.stderr)
        self.assertIn("NVGPU_CLUSTER_CFG", neither.stderr)

    def test_bad_config_names_file_line_and_what_was_expected(self):
        config = self.write_config('interval = "5s"\n\n[[agent]]\nurl = "gpu01:9416"\n')
        result = run("master", "--config", config, "--once")
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr,
                         f'{config}:4: url = "gpu01:9416": expected "self" or an agent\'s URL; '
                         '"gpu01:9416": expected a URL that starts with http:// or https://\n')
        self.assertEqual(result.stdout, "")

    def test_no_agents_says_what_is_missing(self):
        config = self.write_config('interval = "5s"\n')
        result = run("master", "--config", config, "--once")
        self.assertEqual(result.returncode, 2)
        self.assertIn("no [[agent]] tables", result.stderr)

    def test_unreadable_token_file_is_named(self):
        config = self.write_config(f"""
[[agent]]
name = "gpu01"
url = "{self.agents['good'].url}"
token-file = "missing.token"
""")
        result = run("master", "--config", config, "--once")
        self.assertNotEqual(result.returncode, 0)
        self.assertEqual(result.stderr,
                         f'{config}:2: the token of agent "gpu01": --token-file '
                         f"{self.folder / 'missing.token'}: No such file or directory\n")

    def test_a_token_every_user_may_read_is_refused(self):
        token = self.folder / "open.token"
        token.write_text("s3cret\n")
        token.chmod(0o644)
        config = self.write_config(f"""
[[agent]]
name = "gpu01"
url = "{self.agents['good'].url}"
token-file = "open.token"
""")
        result = run("master", "--config", config, "--once")
        self.assertEqual(result.returncode, 2)
        self.assertIn("every user may read it", result.stderr)


def http_get(url, token=None):
    """(status, body) of a GET."""
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


class MasterServing(unittest.TestCase):
    """The master as a service: its own token, /api/v1/fleet, /healthz, rounds, SIGTERM."""

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        folder = Path(self.directory.name)
        (folder / "master.token").write_text("fleet-secret\n")
        (folder / "master.token").chmod(0o600)
        # A live reading: a fixed one is stale on the master 0.6 s after its first poll, which a
        # loaded machine running the tests below under ASan outlasted.
        self.agent = FakeAgent(live(list_json("dgx-8gpu")))
        self.down_port = closed_port()
        self.config = folder / "master.toml"
        self.config.write_text(f"""
interval = "200ms"
timeout = "200ms"
token-file = "master.token"
[[agent]]
url = "self"
name = "master"
[[agent]]
url = "{self.agent.url}"
name = "good"
[[agent]]
url = "http://127.0.0.1:{self.down_port}"
name = "down"
""")
        self.process = subprocess.Popen(
            [GPUMETER, "--simulate", str(scenario("workstation")), "master", "--config",
             str(self.config), "--listen", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        self.base = self.wait_for_address()

    def tearDown(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()
        self.agent.close()
        self.directory.cleanup()

    def wait_for_address(self):
        for line in self.process.stderr:
            found = re.search(r"on (http://127\.0\.0\.1:\d+)/api/v1/fleet", line)
            if found:
                return found.group(1)
        self.fail(f"the master did not start: {self.process.communicate()}")

    def fleet(self):
        status, body = http_get(self.base + "/api/v1/fleet", token="fleet-secret")
        self.assertEqual(status, 200, body)
        return json.loads(body)

    def test_serves_the_fleet_behind_its_token(self):
        document = self.fleet()
        validate_fleet_schema(document)
        states = {node["name"]: node["state"] for node in document["nodes"]}
        self.assertEqual(states, {"master": "ok", "good": "ok", "down": "unreachable"})
        status, body = http_get(self.base + "/api/v1/fleet")
        self.assertEqual(status, 401)
        self.assertNotIn("good", body)
        status, _ = http_get(self.base + "/api/v1/fleet", token="wrong")
        self.assertEqual(status, 401)

    def test_available_fleet_prints_every_free_gpu_as_node_gpu(self):
        deadline = time.monotonic() + 30
        while {n["name"]: n["state"] for n in self.fleet()["nodes"]}.get("good") != "ok":
            self.assertLess(time.monotonic(), deadline, "the good agent never polled")
            time.sleep(0.1)
        token = Path(self.directory.name) / "master.token"
        # What each machine's own `available` says, as node:gpu pairs, by node then index.
        expected = []
        for node, name in (("master", "workstation"), ("good", "dgx-8gpu")):
            own = run("--simulate", scenario(name), "available", "--no-reserve")
            if own.returncode == 0:
                expected += [f"{node}:{gpu}" for gpu in own.stdout.strip().split(",")]
        self.assertGreaterEqual(len(expected), 2)
        # A node counts while its reading is fresh: on a loaded machine a poll of the 200 ms
        # rounds may time out and leave it unreachable for a round, so the fleet is asked again.
        deadline = time.monotonic() + 30
        while True:
            fleet = run("available", "--fleet", self.base, "--token-file", token)
            self.assertEqual(fleet.returncode, 0, fleet.stderr)
            if fleet.stdout.splitlines() == expected or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        self.assertEqual(fleet.stdout.splitlines(), expected)
        limited = run("available", "--fleet", self.base, "--token-file", token, "--limit", "1")
        self.assertEqual(limited.stdout.splitlines(), expected[:1])  # the master's own GPU
        uuids = run("available", "--fleet", self.base, "--token-file", token, "--uuid")
        self.assertTrue(all(re.fullmatch(r"(master|good):GPU-[0-9a-f-]+", line)
                            for line in uuids.stdout.splitlines()), uuids.stdout)
        # No token: the master's refusal.
        refused = run("available", "--fleet", self.base)
        self.assertEqual(refused.returncode, 2)
        self.assertIn("answered HTTP 401", refused.stderr)
        mixed = run("available", "--fleet", self.base, "--mig")
        self.assertEqual(mixed.returncode, 2)
        self.assertIn("--mig and --wait apply to this machine only", mixed.stderr)

    def test_serves_the_dashboard_openly(self):
        request = urllib.request.Request(self.base + "/")
        with urllib.request.urlopen(request, timeout=10) as response:
            self.assertEqual(response.status, 200)
            self.assertTrue(response.headers["Content-Type"].startswith("text/html"))
            page = response.read().decode()
        self.assertIn('id="fleet"', page)

    def test_health_is_open(self):
        status, body = http_get(self.base + "/healthz")
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(body)["status"], "ok")

    def test_rounds_go_on_and_the_down_agent_backs_off(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            nodes = {node["name"]: node for node in self.fleet()["nodes"]}
            if nodes["down"]["poll"]["skipped"] >= 2 and nodes["good"]["poll"]["attempts"] >= 4:
                break
            time.sleep(0.1)
        down, good = nodes["down"]["poll"], nodes["good"]["poll"]
        self.assertGreaterEqual(down["skipped"], 2)
        self.assertLess(down["attempts"], good["attempts"])
        self.assertEqual(down["failures"], down["attempts"])
        self.assertEqual(good["failures"], 0)
        self.assertEqual(good["skipped"], 0)
        self.assertGreater(self.agent.requests, 1)

    def test_sigterm_stops_it_cleanly(self):
        self.process.send_signal(signal.SIGTERM)
        _, err = self.process.communicate(timeout=30)
        self.assertEqual(self.process.returncode, 0)
        self.assertIn("gpumeter master: stopping (SIGTERM)", err)


class Daemon:
    """A real `gpumeter daemon` on a simulated machine, serving HTTP on a free loopback port."""

    def __init__(self, scenario_name, folder, *extra):
        self.folder = folder
        folder.mkdir()
        self.process = subprocess.Popen(
            [GPUMETER, "--simulate", str(scenario(scenario_name)), "daemon",
             "--socket", str(folder / "daemon.sock"), "--state-dir", str(folder),
             "--interval", "200ms", "--listen", "127.0.0.1:0", *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=clean_env())
        self.url = None
        for line in self.process.stderr:
            found = re.search(r"serving HTTP on (http://127\.0\.0\.1:\d+)", line)
            if found:
                self.url = found.group(1)
                break
        if self.url is None:
            raise AssertionError(f"the daemon did not start: {self.process.communicate()}")
        deadline = time.monotonic() + 30
        while http_get(self.url + "/healthz")[0] != 200 and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.communicate(timeout=30)


class MasterWithRealAgents(unittest.TestCase):
    """The master polling real daemons, one of them behind a token."""

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        folder = Path(self.directory.name)
        token = folder / "gpu02.token"
        token.write_text("agent-secret\n")
        token.chmod(0o600)
        self.gpu01 = Daemon("dgx-8gpu", folder / "gpu01")
        self.gpu02 = Daemon("workstation", folder / "gpu02", "--token-file", str(token))
        self.config = folder / "master.toml"
        self.config.write_text(f"""
interval = "300ms"
timeout = "300ms"
[[agent]]
name = "gpu01"
url = "{self.gpu01.url}"
[[agent]]
name = "gpu02"
url = "{self.gpu02.url}"
token-file = "gpu02.token"
[[agent]]
name = "gpu02-without-token"
url = "{self.gpu02.url}"
""")

    def tearDown(self):
        self.gpu01.stop()
        self.gpu02.stop()
        self.directory.cleanup()

    def test_polls_real_agents(self):
        result = run("master", "--config", self.config, "--once", check=True)
        document = json.loads(result.stdout)
        validate_fleet_schema(document)
        nodes = {node["name"]: node for node in document["nodes"]}
        self.assertEqual(nodes["gpu01"]["state"], "ok", nodes["gpu01"]["error"])
        self.assertEqual(nodes["gpu02"]["state"], "ok", nodes["gpu02"]["error"])
        self.assertEqual(nodes["gpu02-without-token"]["state"], "unauthorized")
        self.assertEqual(len(nodes["gpu01"]["status"]["gpus"]), 8)
        self.assertEqual(nodes["gpu02"]["status"]["source"], "nvml (simulated: workstation.json)")

    def test_a_daemon_that_stops_keeps_its_last_reading(self):
        master = subprocess.Popen(
            [GPUMETER, "master", "--config", str(self.config), "--listen", "127.0.0.1:0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=clean_env())
        try:
            base = None
            for line in master.stderr:
                found = re.search(r"on (http://127\.0\.0\.1:\d+)/api/v1/fleet", line)
                if found:
                    base = found.group(1)
                    break
            self.assertIsNotNone(base, "the master did not start")

            def gpu01():
                status, body = http_get(base + "/api/v1/fleet")
                self.assertEqual(status, 200, body)
                return next(n for n in json.loads(body)["nodes"] if n["name"] == "gpu01")

            before = gpu01()
            self.assertEqual(before["state"], "ok", before["error"])
            self.gpu01.stop()
            deadline = time.monotonic() + 30
            after = gpu01()
            while after["state"] == "ok" and time.monotonic() < deadline:
                time.sleep(0.1)
                after = gpu01()
            self.assertEqual(after["state"], "unreachable")
            self.assertEqual(after["error"], "cannot connect (refused, or no route to the host)")
            self.assertEqual(after["status"]["host"], before["status"]["host"])
            self.assertGreaterEqual(after["status"]["time_us"], before["status"]["time_us"])
            self.assertGreater(after["age_seconds"], 0)
        finally:
            master.terminate()
            master.communicate(timeout=30)
        self.assertEqual(master.returncode, 0)


class MasterRefusesToServe(unittest.TestCase):
    def test_a_public_address_needs_a_token(self):
        with tempfile.TemporaryDirectory() as directory:
            config = Path(directory) / "master.toml"
            config.write_text('[[agent]]\nurl = "http://127.0.0.1:9"\n')
            result = run("master", "--config", config, "--listen", "0.0.0.0:0")
        self.assertEqual(result.returncode, 2)
        self.assertIn("token", result.stderr)


if __name__ == "__main__":
    unittest.main()
