# SPDX-License-Identifier: MIT
"""Shared helpers for the end-to-end tests: where things are, and how to run gpumeter."""

import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

SOURCE_DIR = Path(os.environ["GPUMETER_SOURCE_DIR"])
BINARY_DIR = Path(os.environ["GPUMETER_BINARY_DIR"])
GPUMETER = os.environ["GPUMETER_BIN"]
SCENARIOS = SOURCE_DIR / "examples" / "scenarios"
SCHEMAS = SOURCE_DIR / "schemas"


def sim_library(variant="sim"):
    """Path of a simulated libnvidia-ml.so.1 build variant (sim, sim-r535-cc, sim-legacy)."""
    return BINARY_DIR / "lib" / "gpumeter" / variant / "libnvidia-ml.so.1"


def scenario(name):
    return SCENARIOS / f"{name}.json"


def clean_env(**extra):
    """The environment a user would have, minus anything that steers gpumeter or colours."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUMETER_SIM")}
    env.pop("GPUMETER_NVML_LIBRARY", None)
    env.pop("NO_COLOR", None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def epoch_seconds_ago(seconds):
    """A simulator epoch that puts the scenario clock at t = seconds now."""
    return int((time.time() - seconds) * 1_000_000)


def run(*args, env=None, timeout=60, check=False):
    result = subprocess.run([GPUMETER, *map(str, args)], capture_output=True, text=True,
                            env=env if env is not None else clean_env(), timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"gpumeter {' '.join(map(str, args))} exited {result.returncode}:\n"
                             f"{result.stderr}")
    return result


def simulate(name, *args, env=None, **kwargs):
    """gpumeter on a bundled scenario: --simulate, or --simulate-jetson for a Jetson board's."""
    path = scenario(name)
    option = "--simulate-jetson" if "jetson" in json.loads(path.read_text()) else "--simulate"
    return run(option, path, *args, env=env, **kwargs)


def list_json(name, env=None):
    return json.loads(simulate(name, "list", "--json", env=env, check=True).stdout)


def validate_schema(name, document):
    """Validates against schemas/NAME.schema.json."""
    import jsonschema  # Debian's python3-jsonschema
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)


def validate_list_schema(document):
    validate_schema("list", document)


def validate_report_schema(document):
    validate_schema("report", document)


def daemon_http_port(daemon, log, timeout=60):
    """The port a daemon started with --listen 127.0.0.1:0 serves on, from its log line
    "serving HTTP on http://127.0.0.1:PORT"; fails if it exits or says nothing in time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and daemon.poll() is None:
        found = re.search(r"serving HTTP on http://127\.0\.0\.1:(\d+)", log.read_text())
        if found:
            return int(found.group(1))
        time.sleep(0.05)
    raise AssertionError(f"the daemon did not say where it serves:\n{log.read_text()}")


def wait_for_first_round(port, daemon, timeout=60):
    """Waits until GET /api/v1/status answers 200 rather than 503 "starting"; fails if the
    daemon exits or it does not within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/status",
                                        timeout=10) as reply:
                reply.read()
                return
        except urllib.error.HTTPError as error:
            if error.code != 503:
                raise
        if daemon.poll() is not None or time.monotonic() > deadline:
            raise AssertionError("the daemon's sampler did not finish its first round in time")
        time.sleep(0.1)


class OneDaemon:
    """A mixin for test classes whose setUpClass starts one daemon serving HTTP on loopback:
    cls.daemon (its Popen), cls.log (the Path of its output) and cls.port (from served_port)."""

    @classmethod
    def tearDownClass(cls):
        if cls.daemon.poll() is None:
            cls.daemon.kill()
            cls.daemon.wait()

    @classmethod
    def served_port(cls):
        """The port, once the sampler has finished its first round: before it, the live and
        history routes answer 503 "starting" (a sanitizer build on a loaded machine serves
        HTTP seconds before)."""
        port = daemon_http_port(cls.daemon, cls.log)
        wait_for_first_round(port, cls.daemon)
        return port

    @classmethod
    def get(cls, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{cls.port}{path}", timeout=10) as reply:
            return reply.read().decode()
