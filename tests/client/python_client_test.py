# SPDX-License-Identifier: MIT
"""The pure-Python client against a fake daemon on a temporary Unix socket."""

import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
import typing
import unittest
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "clients" / "python"))

import gpumeter  # noqa: E402
from fake_daemon import USAGE, FakeDaemon  # noqa: E402

PROBE_ID = "gpumeter.daemon"  # the status request each new connection of the client opens with


def task_requests(daemon):
    """What the client sent for its tasks: the requests without the connections' status
    probes, and without `rusage` (its own tests check it)."""
    return [{k: v for k, v in r.items() if k != "rusage"}
            for r in daemon.requests if r.get("id") != PROBE_ID]


def wait_until(condition, what):
    """Polls for something another thread does; generous, for loaded machines."""
    deadline = time.monotonic() + 30
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.005)


class WithFakeDaemon(unittest.TestCase):
    def setUp(self):
        self.daemon = FakeDaemon()
        self.addCleanup(self.daemon.stop)
        self.client = gpumeter.Client(self.daemon.path)
        self.addCleanup(self.client.close)
        gpumeter._task._warned.clear()


class TaskContext(WithFakeDaemon):
    def test_a_task_sends_begin_and_end_and_keeps_the_result(self):
        with gpumeter.task("decode", client=self.client, stream="cam3") as t:
            self.assertEqual(t.id, 1)
        self.assertEqual(t.result["usage"], USAGE)
        self.assertEqual(t.result["name"], "decode")
        begin, end = task_requests(self.daemon)
        self.assertEqual(begin, {"op": "begin", "name": "decode", "labels": {"stream": "cam3"}})
        self.assertEqual(end, {"op": "end", "task": 1, "wait": True})

    def test_a_task_without_labels_sends_none(self):
        with gpumeter.task("idle", client=self.client):
            pass
        self.assertNotIn("labels", task_requests(self.daemon)[0])

    def test_labels_are_sent_as_strings(self):
        with gpumeter.task("decode", client=self.client, frame=7):
            pass
        self.assertEqual(task_requests(self.daemon)[0]["labels"], {"frame": "7"})

    def test_the_task_ends_when_the_block_raises(self):
        with self.assertRaises(KeyError):
            with gpumeter.task("decode", client=self.client) as t:
                raise KeyError("boom")
        self.assertEqual(task_requests(self.daemon)[-1]["op"], "end")
        self.assertIsNotNone(t.result)

    def test_wait_false_returns_the_record_without_usage(self):
        with gpumeter.task("decode", client=self.client, wait=False) as t:
            pass
        self.assertEqual(task_requests(self.daemon)[-1]["wait"], False)
        self.assertIsNone(t.result["usage"])

    def test_one_client_serves_many_tasks_from_many_threads(self):
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
        self.assertEqual(len(task_requests(self.daemon)), 80)
        self.assertEqual(self.daemon.open_tasks, {})


class Decorator(WithFakeDaemon):
    def test_each_call_is_a_task_and_the_return_value_passes_through(self):
        @gpumeter.measured("decode", client=self.client, stream="cam1")
        def decode(frame):
            return frame * 2

        self.assertEqual(decode(21), 42)
        self.assertEqual(decode.__name__, "decode")
        ops = [(r["op"], r.get("name")) for r in task_requests(self.daemon)]
        self.assertEqual(ops, [("begin", "decode"), ("end", None)])


class ErrorReplies(unittest.TestCase):
    def test_a_refused_begin_warns_once_and_the_block_still_runs(self):
        daemon = FakeDaemon(refuse={"begin": "limit_reached"})
        self.addCleanup(daemon.stop)
        client = gpumeter.Client(daemon.path)
        self.addCleanup(client.close)
        gpumeter._task._warned.clear()
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
        gpumeter._task._warned.clear()
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
            if json.loads(line).get("id") == PROBE_ID:
                return answer(line)
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
        gpumeter._task._warned.clear()
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


class Threads(unittest.TestCase):
    """Thread A's end waits for its figures (the fake holds that reply) while thread B begins
    and ends: B's requests reach the daemon at once and B's begin returns without A."""

    DELAY = 1.5

    def test_a_waiting_end_holds_back_no_other_thread(self):
        daemon = FakeDaemon(end_delay=self.DELAY)
        self.addCleanup(daemon.stop)
        client = gpumeter.Client(daemon.path)
        self.addCleanup(client.close)
        a_done = threading.Event()

        def thread_a():
            with gpumeter.task("a", client=client):
                pass
            a_done.set()

        a = threading.Thread(target=thread_a)
        a.start()
        wait_until(lambda: daemon.requests_of("end"), "A's end to reach the daemon")
        called = time.monotonic()
        b_id = client.begin("b")
        begin_returned_while_a_waited = not a_done.is_set()
        ended = time.monotonic()
        client.end(b_id, wait=False)
        a.join()
        (b_begin, b_begin_read), = [(r, t) for r, t in daemon.requests_of("begin")
                                   if r["name"] == "b"]
        b_end_read = [t for r, t in daemon.requests_of("end") if r["task"] == b_id][0]
        self.assertTrue(begin_returned_while_a_waited, "B's begin waited for A's end")
        # Behaviour, not speed: held behind A they would arrive DELAY seconds late.
        self.assertLess(b_begin_read - called, 0.2)
        self.assertLess(b_end_read - ended, 0.2)

    def test_waiting_ends_of_many_threads_overlap(self):
        daemon = FakeDaemon(end_delay=1.0)
        self.addCleanup(daemon.stop)
        client = gpumeter.Client(daemon.path)
        self.addCleanup(client.close)
        results = []

        def work(number):
            with gpumeter.task("t", client=client, n=number) as t:
                pass
            results.append(t.result)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(len(results), 8)
        self.assertTrue(all(r is not None and r["usage"] == USAGE for r in results))
        # Eight serialised waits would take 8 s; overlapping ones end within a few delays.
        ends = [t for _, t in daemon.requests_of("end")]
        self.assertLess(max(ends) - min(ends), 0.9, "an end reached the daemon a delay late")


class Asyncio(unittest.TestCase):
    def setUp(self):
        self.daemon = FakeDaemon(end_delay=1.0)
        self.addCleanup(self.daemon.stop)
        self.client = gpumeter.Client(self.daemon.path)
        self.addCleanup(self.client.close)
        gpumeter._task._warned.clear()

    def window(self):
        """How long the daemon saw the one task open (its begin and end receive times)."""
        (_, begun), = self.daemon.requests_of("begin")
        (_, ended), = self.daemon.requests_of("end")
        return ended - begun

    def test_async_with_spans_the_block_and_keeps_the_loop_running(self):
        ticks = []

        async def ticker(stop):
            while not stop.is_set():
                ticks.append(time.monotonic())
                await asyncio.sleep(0.01)

        async def main():
            stop = asyncio.Event()
            ticking = asyncio.create_task(ticker(stop))
            async with gpumeter.task("infer", client=self.client) as t:
                await asyncio.sleep(0.3)
                block_left = time.monotonic()
            stop.set()
            await ticking
            return t, block_left

        t, block_left = asyncio.run(main())
        self.assertEqual(t.result["usage"], USAGE)
        self.assertGreaterEqual(self.window(), 0.3)
        during_end = [tick for tick in ticks if tick > block_left]
        # A blocked loop would tick once or not at all in the second the end waits.
        self.assertGreater(len(during_end), 10)

    def test_measured_on_a_coroutine_function_spans_its_run(self):
        @gpumeter.measured("infer", client=self.client, model="m")
        async def infer(batch):
            await asyncio.sleep(0.3)
            return batch * 2

        self.assertTrue(asyncio.iscoroutinefunction(infer))
        self.assertEqual(asyncio.run(infer(21)), 42)
        self.assertEqual(infer.__name__, "infer")
        (begin, _), = self.daemon.requests_of("begin")
        self.assertEqual(begin["labels"], {"model": "m"})
        self.assertGreaterEqual(self.window(), 0.3)

    def test_the_begin_is_sent_when_the_block_is_entered(self):
        async def main():
            async with gpumeter.task("infer", client=self.client, wait=False):
                entered = len(self.daemon.requests_of("begin"))
            return entered

        self.assertEqual(asyncio.run(main()), 1)

    def test_without_a_daemon_the_coroutine_runs_with_one_warning(self):
        client = gpumeter.Client(os.path.join(tempfile.mkdtemp(), "absent.sock"))

        @gpumeter.measured("infer", client=client)
        async def infer():
            return "inferred"

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertEqual([asyncio.run(infer()) for _ in range(3)], ["inferred"] * 3)
        self.assertEqual(len(caught), 1)
        self.assertIn(client.socket_path, str(caught[0].message))


class Restart(unittest.TestCase):
    def test_a_restart_is_reported_once_and_its_lost_tasks_have_no_result(self):
        first = FakeDaemon()
        self.addCleanup(first.stop)
        client = gpumeter.Client(first.path)
        self.addCleanup(client.close)
        gpumeter._task._warned.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with gpumeter.task("before", client=client) as lost:
                first.stop()
                second = FakeDaemon(path=first.path, first_task=100)  # ids are never reused
                self.addCleanup(second.stop)
            with gpumeter.task("after", client=client) as kept:
                pass
        self.assertIsNone(lost.result)
        self.assertEqual(kept.result["name"], "after")
        self.assertEqual([str(w.message) for w in caught],
                         [f"gpumeter: the daemon at {first.path} restarted; tasks begun "
                          "before it are lost"])
        self.assertIs(caught[0].category, RuntimeWarning)
        stale_end, = [r for r, _ in second.requests_of("end") if r["task"] == lost.id]
        self.assertEqual(stale_end["task"], lost.id)

    def test_a_dropped_connection_to_the_same_daemon_is_no_restart(self):
        daemon = FakeDaemon()
        self.addCleanup(daemon.stop)
        client = gpumeter.Client(daemon.path)
        self.addCleanup(client.close)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with gpumeter.task("one", client=client):
                pass
            client.close()  # as if the connections had dropped
            with gpumeter.task("two", client=client) as t:
                pass
        self.assertEqual(caught, [])
        self.assertEqual(t.result["name"], "two")


def burn_cpu(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        sum(range(1000))


class Rusage(WithFakeDaemon):
    def rusage_of(self, op):
        return [r["rusage"] for r, _ in self.daemon.requests_of(op)]

    def test_begin_and_end_carry_the_process_cpu_time(self):
        before = resource.getrusage(resource.RUSAGE_SELF)
        with gpumeter.task("decode", client=self.client) as t:
            burn_cpu(0.2)
        (begin,), (end,) = self.rusage_of("begin"), self.rusage_of("end")
        self.assertEqual(t.result["rusage_at_begin"], begin)  # the fake accepted and kept it
        for sent in (begin, end):
            self.assertEqual(set(sent), {"user_us", "system_us"})
            self.assertTrue(all(type(v) is int for v in sent.values()))
        self.assertGreaterEqual(begin["user_us"], round(before.ru_utime * 1e6))
        self.assertGreaterEqual(begin["system_us"], round(before.ru_stime * 1e6))
        self.assertGreaterEqual(end["system_us"], begin["system_us"])
        # 0.2 s of process CPU time, nearly all of it user time.
        self.assertGreater(end["user_us"] + end["system_us"] -
                           begin["user_us"] - begin["system_us"], 150_000)
        self.assertGreater(end["user_us"] - begin["user_us"], 100_000)

    def test_another_process_s_task_carries_none(self):
        other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        self.addCleanup(other.wait)
        self.addCleanup(other.kill)
        task_id = self.client.begin("decode", pid=other.pid)
        self.client.end(task_id, wait=False)
        own_id = self.client.begin("decode", pid=os.getpid())
        self.client.end(own_id)
        (other_begin, _), (own_begin, _) = self.daemon.requests_of("begin")
        (other_end, _), (own_end, _) = self.daemon.requests_of("end")
        self.assertEqual(other_begin["pid"], other.pid)
        self.assertNotIn("rusage", other_begin)
        self.assertNotIn("rusage", other_end)
        self.assertIn("rusage", own_begin)
        self.assertIn("rusage", own_end)

    def test_status_carries_none(self):
        self.client.status()
        self.assertTrue(all("rusage" not in r for r in self.daemon.requests
                            if r["op"] == "status"))

    def test_a_daemon_without_the_key_gets_requests_without_it(self):
        daemon = FakeDaemon(unknown_keys={"rusage"})
        self.addCleanup(daemon.stop)
        with gpumeter.Client(daemon.path) as client:
            for _ in range(2):
                with gpumeter.task("decode", client=client) as t:
                    pass
                self.assertEqual(t.result["name"], "decode")
        sent = [r for r in daemon.requests if r["op"] in ("begin", "end")]
        # The first begin, refused for the key, went again without it, as did all after it.
        self.assertEqual([("rusage" in r) for r in sent], [True, False, False, False, False])
        self.assertEqual([r["op"] for r in sent], ["begin", "begin", "end", "begin", "end"])


class PublicApi(unittest.TestCase):
    API = {"Client", "GpumeterError", "Task", "available_gpus", "default_socket_path", "devices",
           "gpu_info", "measured", "processes", "task"}

    def test_only_the_api_is_public(self):
        public = {n for n in dir(gpumeter) if not n.startswith("_")}
        self.assertEqual(public - {"PROTOCOL_VERSION", "SYSTEM_SOCKET"}, self.API)
        namespace = {}
        exec("from gpumeter import *", namespace)
        self.assertEqual(set(namespace) - {"__builtins__"}, self.API)

    def test_the_api_has_type_hints(self):
        for function in (gpumeter.Client.__init__, gpumeter.Client.begin, gpumeter.Client.end,
                         gpumeter.Client.status, gpumeter.Client.request, gpumeter.Task.__init__,
                         gpumeter.task, gpumeter.measured, gpumeter.default_socket_path,
                         gpumeter.GpumeterError.__init__):
            with self.subTest(function=function.__qualname__):
                hints = typing.get_type_hints(function)
                self.assertIn("return", hints)

    def test_a_client_dropped_without_close_closes_its_connections(self):
        daemon = FakeDaemon()
        self.addCleanup(daemon.stop)
        readers = lambda: {t for t in threading.enumerate() if t.name == "gpumeter-reader"}
        earlier = readers()  # other tests' clients, which may still be ending
        client = gpumeter.Client(daemon.path)
        client.end(client.begin("decode"))
        # The fast connection and a waiting one, each with its reader (started as they open).
        wait_until(lambda: len(readers() - earlier) == 2, "two reader threads")
        mine = readers() - earlier
        del client
        wait_until(lambda: not any(t.is_alive() for t in mine), "the reader threads to end")

    def test_status_without_a_daemon_names_the_socket(self):
        path = os.path.join(tempfile.mkdtemp(), "absent.sock")
        with self.assertRaises(FileNotFoundError) as raised:
            gpumeter.Client(path).status()
        self.assertIn(path, str(raised.exception))


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
