# SPDX-License-Identifier: MIT
"""The daemon's history on a full disk, a read-only file system and a damaged database.

The database lives on a small tmpfs mounted by the test (mounting needs root, or
CAP_SYS_ADMIN; elsewhere the tests are skipped and say so):

- full: a file fills the tmpfs while the daemon runs; the daemon logs one clear error, keeps
  serving live data over HTTP and the task socket, and once the file is removed writes every
  queued record;
- read-only: the tmpfs is mounted read-only before the daemon starts; the daemon says so in
  one line naming the database and the reason, serves live data, leaves the file as it was,
  and once the file system is writable again writes every queued record;
- damaged: two b-tree pages of a database are overwritten; the daemon says the database is
  malformed, keeps serving live data, and integrity_check finds the damage.

And without a mount: a file in the database's place that is not a database at all.
"""

import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))
from gpumeter_testlib import GPUMETER, clean_env, daemon_http_port, scenario  # noqa: E402


def mount_tmpfs(path, size):
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path],
                            capture_output=True, text=True)
    return result.returncode == 0


def live_status(port):
    """GET /api/v1/status, or None while the sampler has not finished its first round (503:
    a sanitizer build on a loaded machine may serve HTTP before it)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/status",
                                    timeout=10) as reply:
            return json.loads(reply.read())
    except urllib.error.HTTPError as error:
        if error.code == 503:
            return None
        raise


def wait_for(condition, what, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def count_rows(database, table):
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)
    try:
        return db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        db.close()


class DiskFaults(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="gpumeter-disk-"))
        self.mount = self.directory / "mnt"
        self.mount.mkdir()
        if not mount_tmpfs(self.mount, "2m"):
            self.skipTest("cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)")
        self.addCleanup(subprocess.run, ["umount", "-l", self.mount], check=False)
        self.state = self.mount / "state"
        self.database = self.state / "gpumeter.db"
        self.daemon = None
        self.starts = 0

    def tearDown(self):
        if self.daemon is not None and self.daemon.poll() is None:
            self.daemon.kill()
            self.daemon.wait()

    def start(self):
        # A log per start, so that the port read from it is this start's.
        self.starts += 1
        self.log = self.directory / f"daemon-{self.starts}.log"
        with open(self.log, "wb") as out:
            self.daemon = subprocess.Popen(
                [GPUMETER, "--simulate", scenario("dgx-8gpu"), "daemon", "--state-dir",
                 self.state, "--socket", self.directory / "task.sock", "--listen",
                 "127.0.0.1:0", "--interval", "100ms", "--record-interval", "1s"],
                stdout=out, stderr=subprocess.STDOUT, env=clean_env())
        self.port = daemon_http_port(self.daemon, self.log)

    def log_count(self, text):
        return self.log.read_text().count(text)

    def assert_serves_live_data(self):
        """The HTTP API answers with samples taken after the call, and the task socket
        answers a begin and an end."""
        called_us = time.time_ns() // 1000
        def fresh():
            document = live_status(self.port)
            return document is not None and len(document["gpus"]) == 8 and \
                document["time_us"] > called_us
        wait_for(fresh, "a snapshot newer than the call")
        with socket.socket(socket.AF_UNIX) as conn:
            conn.connect(str(self.directory / "task.sock"))
            reader = conn.makefile("r")
            conn.sendall(b'{"op":"begin","name":"during-fault"}\n')
            task = json.loads(reader.readline())
            self.assertTrue(task["ok"], task)
            conn.sendall(json.dumps({"op": "end", "task": task["task"], "wait": False})
                         .encode() + b"\n")
            self.assertTrue(json.loads(reader.readline())["ok"])

    def test_a_full_disk_fails_writes_clearly_and_they_resume_when_space_returns(self):
        self.start()
        wait_for(lambda: self.database.exists() and count_rows(self.database, "device_samples"),
                 "the first samples in the database")
        filler = self.mount / "filler"
        with open(filler, "wb") as out:
            try:
                while True:
                    out.write(b"\0" * 65536)
                    out.flush()
            except OSError:
                pass
        wait_for(lambda: self.log_count("history: cannot write:"), "the write error")
        self.assertIn("database or disk is full", self.log.read_text())
        self.assert_serves_live_data()
        failed_at = count_rows(self.database, "device_samples")
        time.sleep(2)  # two record intervals that fail, their records kept in memory
        filler.unlink()
        wait_for(lambda: self.log_count("history: writing"), "the writes to resume")
        self.assertIn("again (0 records lost while it failed)", self.log.read_text())
        self.assertEqual(self.log_count("history: cannot write:"), 1, "one line, not one a try")
        # The samples of the seconds it failed are written too: 8 GPUs, 10 rounds a second.
        self.assertGreater(count_rows(self.database, "device_samples"), failed_at + 8 * 10 * 2)
        self.assertEqual(self.daemon.poll(), None)
        db = sqlite3.connect(f"file:{self.database}?mode=ro", uri=True)
        self.assertEqual(db.execute("PRAGMA integrity_check").fetchall(), [("ok",)])
        db.close()

    def test_a_read_only_file_system_is_named_live_data_goes_on_and_writes_resume(self):
        self.start()
        wait_for(lambda: self.database.exists() and count_rows(self.database, "device_samples"),
                 "the first samples in the database")
        self.daemon.terminate()
        self.daemon.wait()
        written_before = count_rows(self.database, "device_samples")
        subprocess.run(["mount", "-o", "remount,ro", self.mount], check=True)
        before = self.database.read_bytes()
        self.start()
        wait_for(lambda: self.log_count("history: "), "the error")
        first = self.log.read_text().splitlines()[0]
        self.assertTrue(first.startswith(f"gpumeter daemon: history: {self.database}: "), first)
        self.assertIn("readonly database", first)
        self.assertIn("each record interval tries again", first)
        self.assert_serves_live_data()
        time.sleep(2)  # two record intervals that fail, their records kept in memory
        self.assertEqual(self.database.read_bytes(), before)
        self.assertEqual(self.log_count("readonly database"), 1, "one line, not one a try")
        subprocess.run(["mount", "-o", "remount,rw", self.mount], check=True)
        wait_for(lambda: self.log_count("history: writing"), "the writes to resume")
        # The samples of the seconds it could not write are written too: 8 GPUs, 10 rounds a
        # second.
        self.assertGreater(count_rows(self.database, "device_samples"),
                           written_before + 8 * 10 * 2)
        self.assertEqual(self.daemon.poll(), None)

    def test_a_damaged_database_is_named_and_live_data_goes_on(self):
        self.start()
        wait_for(lambda: self.database.exists() and count_rows(self.database, "device_samples"),
                 "the first samples in the database")
        self.daemon.terminate()
        self.daemon.wait()
        db = sqlite3.connect(self.database)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = [row[0] for row in db.execute(
            "SELECT rootpage FROM sqlite_master WHERE name IN ('device_samples', 'ledger')")]
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        db.close()
        with open(self.database, "r+b") as out:
            for page in pages:
                out.seek((page - 1) * page_size)
                out.write(b"\x07" * 12)  # not a b-tree page type
        self.start()
        wait_for(lambda: self.log_count("database disk image is malformed"), "the error")
        self.assert_serves_live_data()
        self.assertEqual(self.daemon.poll(), None)
        db = sqlite3.connect(f"file:{self.database}?mode=ro", uri=True)
        try:
            self.assertNotEqual(db.execute("PRAGMA integrity_check").fetchall(), [("ok",)])
        except sqlite3.DatabaseError as error:
            self.assertIn("malformed", str(error))
        db.close()


class UnopenableDatabase(unittest.TestCase):
    """A file in the database's place that is not a database (no mount needed): the daemon
    serves live data, the history routes answer 503 naming the file, and once the file is
    moved away the next record interval creates the database and writes what waited."""

    def test_the_daemon_serves_and_opens_the_database_once_the_file_is_moved_away(self):
        directory = Path(tempfile.mkdtemp(prefix="gpumeter-unopenable-"))
        state = directory / "state"
        state.mkdir()
        database = state / "gpumeter.db"
        junk = b"not a database\n" * 1000
        database.write_bytes(junk)
        log = directory / "daemon.log"
        with open(log, "wb") as out:
            daemon = subprocess.Popen(
                [GPUMETER, "--simulate", scenario("dgx-8gpu"), "daemon", "--state-dir", state,
                 "--socket", directory / "task.sock", "--listen", "127.0.0.1:0", "--interval",
                 "100ms", "--record-interval", "1s"],
                stdout=out, stderr=subprocess.STDOUT, env=clean_env())
        self.addCleanup(daemon.wait)
        self.addCleanup(daemon.kill)
        port = daemon_http_port(daemon, log)
        self.assertIn(f"history: {database} is not a gpumeter database or is damaged",
                      log.read_text())
        wait_for(lambda: live_status(port) is not None, "the first snapshot")
        self.assertEqual(len(live_status(port)["gpus"]), 8)
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/history?gpu=0&since=2h",
                                   timeout=10)
        self.assertEqual(refused.exception.code, 503)
        self.assertIn("is not a gpumeter database", json.loads(refused.exception.read())["error"])
        time.sleep(2.5)  # two record intervals that cannot open it
        self.assertEqual(database.read_bytes(), junk)
        self.assertEqual(log.read_text().count("is not a gpumeter database"), 1,
                         "one line while it lasts, not one a try")
        database.rename(directory / "junk")
        wait_for(lambda: "history: writing" in log.read_text(), "the database to open")
        # The rounds of the seconds it could not open the database are written too.
        self.assertGreater(count_rows(database, "device_samples"), 8 * 10 * 2)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/history?gpu=0&since=2h",
                                    timeout=10) as reply:
            self.assertEqual(reply.status, 200)
        self.assertIsNone(daemon.poll())


if __name__ == "__main__":
    unittest.main()
