"""The pure-Python client against a fake daemon on a temporary Unix socket."""

import os
import sys
import tempfile
import threading
import unittest
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "clients" / "python"))

import gpumeter  # noqa: E402
from fake_daemon import USAGE, FakeDaemon  # noqa: E402


class WithFakeDaemon(unittest.TestCase):
    def setUp(self):
        self.daemon = FakeDaemon()
        self.addCleanup(self.daemon.stop)
        self.client = gpumeter.Client(self.daemon.path)
        self.addCleanup(self.client.close)
        gpumeter._warned.clear()


class TaskContext(WithFakeDaemon):
    def test_a_task_sends_begin_and_end_and_keeps_the_result(self):
        with gpumeter.task("decode", client=self.client, stream="cam3") as t:
            self.assertEqual(t.id, 1)
        self.assertEqual(t.result["usage"], USAGE)
        self.assertEqual(t.result["name"], "decode")
        begin, end = self.daemon.requests
        self.assertEqual(begin, {"op": "begin", "name": "decode", "labels": {"stream": "cam3"}})
        self.assertEqual(end, {"op": "end", "task": 1, "wait": True})

    def test_a_task_without_labels_sends_none(self):
        with gpumeter.task("idle", client=self.client):
            pass
        self.assertNotIn("labels", self.daemon.requests[0])

    def test_labels_are_sent_as_strings(self):
        with gpumeter.task("decode", client=self.client, frame=7):
            pass
        self.assertEqual(self.daemon.requests[0]["labels"], {"frame": "7"})

    def test_the_task_ends_when_the_block_raises(self):
        with self.assertRaises(KeyError):
            with gpumeter.task("decode", client=self.client) as t:
                raise KeyError("boom")
        self.assertEqual(self.daemon.requests[-1]["op"], "end")
        self.assertIsNotNone(t.result)

    def test_wait_false_returns_the_record_without_usage(self):
        with gpumeter.task("decode", client=self.client, wait=False) as t:
            pass
        self.assertEqual(self.daemon.requests[-1]["wait"], False)
        self.assertIsNone(t.result["usage"])

    def test_one_connection_serves_many_tasks_from_many_threads(self):
        def work():
            for _ in range(10):
                with gpumeter.task("decode", client=self.client) as t:
                    pass
                self.assertIsNotNone(t.result)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(len(self.daemon.requests), 80)
        self.assertEqual(self.daemon.open_tasks, {})


class Decorator(WithFakeDaemon):
    def test_each_call_is_a_task_and_the_return_value_passes_through(self):
        @gpumeter.measured("decode", client=self.client, stream="cam1")
        def decode(frame):
            return frame * 2

        self.assertEqual(decode(21), 42)
        self.assertEqual(decode.__name__, "decode")
        ops = [(r["op"], r.get("name")) for r in self.daemon.requests]
        self.assertEqual(ops, [("begin", "decode"), ("end", None)])


class ErrorReplies(unittest.TestCase):
    def test_a_refused_begin_warns_once_and_the_block_still_runs(self):
        daemon = FakeDaemon(refuse={"begin": "limit_reached"})
        self.addCleanup(daemon.stop)
        client = gpumeter.Client(daemon.path)
        self.addCleanup(client.close)
        gpumeter._warned.clear()
        ran = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                with gpumeter.task("decode", client=client) as t:
                    ran.append(True)
                self.assertIsNone(t.result)
        self.assertEqual(len(ran), 3)
        self.assertEqual(len(caught), 1)
        self.assertIn("limit_reached", str(caught[0].message))

    def test_a_reply_outside_the_protocol_warns_and_leaves_no_result(self):
        daemon = FakeDaemon()
        self.addCleanup(daemon.stop)
        daemon._serve = lambda connection: (connection.recv(4096), connection.sendall(b"?\n"))
        client = gpumeter.Client(daemon.path)
        self.addCleanup(client.close)
        gpumeter._warned.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with gpumeter.task("decode", client=client) as t:
                pass
        self.assertIsNone(t.result)
        self.assertIn("not the task protocol", str(caught[0].message))

    def test_request_raises_the_protocol_error(self):
        daemon = FakeDaemon()
        self.addCleanup(daemon.stop)
        with gpumeter.Client(daemon.path) as client:
            with self.assertRaises(gpumeter.GpumeterError) as raised:
                client.end(99)
        self.assertEqual(raised.exception.code, "unknown_task")


class SilentDaemon(unittest.TestCase):
    def test_a_reply_that_times_out_is_not_sent_again(self):
        daemon = FakeDaemon()
        self.addCleanup(daemon.stop)
        gate = threading.Event()
        self.addCleanup(gate.set)
        received = []
        answer = daemon.answer

        def held(line):
            received.append(line)
            gate.wait()
            return answer(line)

        daemon.answer = held
        with gpumeter.Client(daemon.path, timeout=0.2) as client:
            with self.assertRaises(OSError):
                client.status()
        for _ in range(1000):  # the fake may not have read the line yet on a loaded machine
            if received:
                break
            threading.Event().wait(0.01)
        gate.set()
        self.assertEqual(len(received), 1)


class NoDaemon(unittest.TestCase):
    def setUp(self):
        gpumeter._warned.clear()
        self.path = os.path.join(tempfile.mkdtemp(), "absent.sock")

    def test_the_worker_keeps_working_with_one_warning(self):
        client = gpumeter.Client(self.path)
        self.addCleanup(client.close)

        @gpumeter.measured("decode", client=client)
        def decode():
            return "decoded"

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results = [decode() for _ in range(5)]
            with gpumeter.task("decode", client=client) as t:
                pass
        self.assertEqual(results, ["decoded"] * 5)
        self.assertIsNone(t.result)
        self.assertEqual(len(caught), 1)
        self.assertIn(self.path, str(caught[0].message))
        self.assertIs(caught[0].category, RuntimeWarning)

    def test_a_daemon_that_appears_later_is_used(self):
        client = gpumeter.Client(self.path)
        self.addCleanup(client.close)
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            with gpumeter.task("early", client=client) as early:
                pass
        daemon = FakeDaemon(self.path)
        self.addCleanup(daemon.stop)
        with gpumeter.task("late", client=client) as late:
            pass
        self.assertIsNone(early.result)
        self.assertEqual(late.result["name"], "late")


class DefaultSocket(unittest.TestCase):
    def setUp(self):
        saved = dict(os.environ)
        self.addCleanup(lambda: (os.environ.clear(), os.environ.update(saved)))
        os.environ.pop("GPUMETER_SOCKET", None)
        os.environ.pop("XDG_RUNTIME_DIR", None)

    def test_the_environment_variable_comes_first(self):
        os.environ["GPUMETER_SOCKET"] = "/tmp/x.sock"
        os.environ["XDG_RUNTIME_DIR"] = "/run/user/1000"
        self.assertEqual(gpumeter.default_socket_path(), "/tmp/x.sock")

    def test_then_the_runtime_directory_when_its_socket_exists(self):
        daemon = FakeDaemon()
        self.addCleanup(daemon.stop)
        os.environ["XDG_RUNTIME_DIR"] = daemon.directory
        self.assertEqual(gpumeter.default_socket_path(), daemon.path)

    @unittest.skipIf(os.path.exists(gpumeter.SYSTEM_SOCKET), "a system daemon runs here")
    def test_the_runtime_directory_when_no_socket_exists(self):
        os.environ["XDG_RUNTIME_DIR"] = "/run/user/1000"
        self.assertEqual(gpumeter.default_socket_path(), "/run/user/1000/gpumeter.sock")

    def test_then_the_system_socket(self):
        self.assertEqual(gpumeter.default_socket_path(), "/run/gpumeter/gpumeter.sock")
        self.assertEqual(gpumeter.Client().socket_path, "/run/gpumeter/gpumeter.sock")


if __name__ == "__main__":
    unittest.main()
