# SPDX-License-Identifier: MIT
"""`gpumeter limit` for real: a running process tree moved into a cgroup with limits, shown,
and moved back with --clear, checked through /proc/PID/cgroup; and a busy loop held to half of
one CPU by `--cpu-percent 50 --cpuset 0`. Where this machine lets no cgroup with limits be
made (no permission, no controller, a read-only cgroup file system), the tests skip and say
why, in gpumeter's own words."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

from gpumeter_testlib import GPUMETER, clean_env

# A worker that forks one child now and one more on each SIGUSR1, and writes their pids.
WORKER = """
import os, signal, sys, time
out = open(sys.argv[1], "w")
def spawn(*_):
    pid = os.fork()
    if pid == 0:
        while True:
            time.sleep(1)
    out.write(f"{pid}\\n")
    out.flush()
signal.signal(signal.SIGUSR1, spawn)
spawn()
while True:
    signal.pause()
"""

BUSY = "while True: pass\n"


def cgroups(pid):
    """The lines of /proc/PID/cgroup, without the hierarchy numbers' order mattering."""
    return sorted(Path(f"/proc/{pid}/cgroup").read_text().splitlines())


def cpu_seconds(pid):
    """User + system CPU time of the process so far (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for_lines(path, count, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            lines = path.read_text().split()
            if len(lines) >= count:
                return [int(line) for line in lines]
        time.sleep(0.02)
    raise AssertionError(f"{path} did not get {count} pids")


class Limit(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory(prefix="gpumeter-limit-test-")
        self.directory = Path(self.temp.name)
        self.state = self.directory / "state"
        self.env = clean_env()
        self.processes = []
        self.children = []  # forked by a worker: not ours to wait for, but ours to end
        self.limited = []

    def tearDown(self):
        for pid in self.limited:
            self.gpumeter("--pid", str(pid), "--clear")
        for pid in self.children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for process in self.processes:
            process.kill()
            process.wait()
        self.temp.cleanup()

    def gpumeter(self, *args):
        return subprocess.run([GPUMETER, "limit", "--state-dir", str(self.state), *args],
                              capture_output=True, text=True, env=self.env, timeout=60)

    def spawn(self, *args):
        process = subprocess.Popen([sys.executable, "-c", *args])
        self.processes.append(process)
        return process

    def limit_or_skip(self, pid, *limits):
        result = self.gpumeter("--pid", str(pid), *limits, "--json")
        if result.returncode == 1 and "no cgroup with the limits could be made" in result.stderr:
            self.skipTest(f"this machine lets no cgroup with limits be made: {result.stderr}")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.limited.append(pid)
        return json.loads(result.stdout)

    def test_the_tree_moves_into_the_group_and_back(self):
        pids_file = self.directory / "pids"
        worker = self.spawn(WORKER, str(pids_file))
        child = wait_for_lines(pids_file, 1)[0]
        self.children.append(child)
        before = {pid: cgroups(pid) for pid in (worker.pid, child)}

        limited = self.limit_or_skip(worker.pid, "--memory", "256M")
        group = f"/gpumeter-limit-{worker.pid}"
        self.assertEqual(limited["limits"]["memory_bytes"], 256 << 20, limited)
        self.assertEqual(limited["processes"], sorted([worker.pid, child]), limited)
        for pid in (worker.pid, child):
            self.assertTrue(any(line.endswith(group) for line in cgroups(pid)), cgroups(pid))
        for path in limited["groups"]:
            self.assertTrue(Path(path).is_dir(), path)

        worker.send_signal(signal.SIGUSR1)
        late = wait_for_lines(pids_file, 2)[1]
        self.children.append(late)
        self.assertTrue(any(line.endswith(group) for line in cgroups(late)),
                        "a child forked later starts in the group")

        shown = self.gpumeter("--pid", str(worker.pid), "--json")
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertEqual(json.loads(shown.stdout)["processes"], sorted([worker.pid, child, late]))
        text = self.gpumeter("--pid", str(worker.pid))
        self.assertIn("memory     256MiB (268435456 bytes)\n", text.stdout)

        cleared = self.gpumeter("--pid", str(worker.pid), "--clear")
        self.assertEqual(cleared.returncode, 0, cleared.stderr)
        self.limited.remove(worker.pid)
        for pid in (worker.pid, child):
            self.assertEqual(cgroups(pid), before[pid])
        self.assertEqual(cgroups(late), before[worker.pid], "goes where the worker came from")
        for path in limited["groups"]:
            self.assertFalse(Path(path).exists(), path)
        again = self.gpumeter("--pid", str(worker.pid), "--json")
        self.assertEqual(json.loads(again.stdout), {"pid": worker.pid, "limited": False})

    def test_a_limited_process_is_not_limited_twice(self):
        worker = self.spawn("import time; time.sleep(60)")
        self.limit_or_skip(worker.pid, "--memory", "1G")
        twice = self.gpumeter("--pid", str(worker.pid), "--memory", "2G")
        self.assertEqual(twice.returncode, 2)
        self.assertIn(f"pid {worker.pid} is limited already", twice.stderr)

    def test_half_of_one_cpu_holds_a_busy_loop_to_half_a_core(self):
        loop = self.spawn(BUSY)
        limited = self.limit_or_skip(loop.pid, "--cpu-percent", "50", "--cpuset", "0")
        self.assertEqual(limited["limits"]["cpu_quota_us"], 50000, limited)
        self.assertEqual(limited["limits"]["cpu_period_us"], 100000, limited)
        self.assertEqual(limited["limits"]["cpuset"], "0", limited)
        status = Path(f"/proc/{loop.pid}/status").read_text()
        self.assertIn("Cpus_allowed_list:\t0\n", status)
        time.sleep(0.3)  # past the period in which it was moved
        start_cpu, start = cpu_seconds(loop.pid), time.monotonic()
        time.sleep(2)
        share = (cpu_seconds(loop.pid) - start_cpu) / (time.monotonic() - start)
        # A behaviour check with wide margins: unlimited, the loop would take a whole core.
        # A busy machine can give it less than its quota, never more.
        self.assertLess(share, 0.7, f"the loop used {share:.0%} of a core")
        self.assertGreater(share, 0.1, f"the loop used {share:.0%} of a core")
        print(f"busy loop under --cpu-percent 50 --cpuset 0: {share:.0%} of one core",
              file=sys.stderr)

    def test_errors(self):
        gone = self.gpumeter("--pid", "2147483000", "--memory", "1G")
        self.assertEqual(gone.returncode, 2)
        self.assertEqual(gone.stderr, "gpumeter limit: no process with pid 2147483000\n")
        unknown = self.gpumeter("--pid", str(os.getpid()), "--clear")
        self.assertEqual(unknown.returncode, 2)
        self.assertIn("has no limits of gpumeter limit", unknown.stderr)
        bad = self.gpumeter("--pid", str(os.getpid()), "--cpuset", "0-9999")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--cpuset: CPU ", bad.stderr)

    @unittest.skipUnless(os.getuid() == 0, "runs gpumeter as another user, which needs root")
    def test_another_users_process_needs_root(self):
        worker = self.spawn("import time; time.sleep(60)")

        def as_nobody():
            os.setgid(65534)
            os.setuid(65534)

        result = subprocess.run([GPUMETER, "limit", "--pid", str(worker.pid), "--memory", "1G",
                                 "--state-dir", str(self.directory / "nobody")],
                                capture_output=True, text=True, env=self.env, timeout=60,
                                preexec_fn=as_nobody)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(f"pid {worker.pid} belongs to uid 0", result.stderr)
        self.assertIn("needs root", result.stderr)


if __name__ == "__main__":
    unittest.main()
