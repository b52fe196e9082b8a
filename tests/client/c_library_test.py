# SPDX-License-Identifier: MIT
"""libgpumeter-client.so loaded with ctypes, against the in-process fake daemon: the cases a
separate C program cannot stage easily (a daemon that restarts, a reply that is not the
protocol, each error word). Path of the library in GPUMETER_CLIENT_LIBRARY."""

import ctypes
import json
import os
import threading
import time
import unittest

from fake_daemon import FakeDaemon

LIB = ctypes.CDLL(os.environ["GPUMETER_CLIENT_LIBRARY"])
LIB.gpumeter_connect.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
LIB.gpumeter_disconnect.argtypes = [ctypes.c_void_p]
LIB.gpumeter_task_begin.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                    ctypes.POINTER(ctypes.c_void_p)]
LIB.gpumeter_task_end.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
LIB.gpumeter_strerror.restype = ctypes.c_char_p

E_PROTOCOL, E_NOT_PERMITTED, E_UNKNOWN_TASK, E_UNKNOWN_PROCESS, E_LIMIT, E_DAEMON = (
    -3, -4, -5, -6, -7, -8)


class StderrCapture:
    """What the library writes to file descriptor 2 inside the block."""

    def __enter__(self):
        import tempfile
        self.file = tempfile.TemporaryFile()
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc):
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.said = self.file.read().decode()
        self.file.close()

    def text(self):
        return self.said


class CLibrary(unittest.TestCase):
    def connect(self, daemon):
        client = ctypes.c_void_p()
        self.assertEqual(LIB.gpumeter_connect(daemon.path.encode(), ctypes.byref(client)), 0)
        self.addCleanup(LIB.gpumeter_disconnect, client)
        return client

    @staticmethod
    def begin(client):
        task = ctypes.c_void_p()
        return LIB.gpumeter_task_begin(client, b"decode", None, ctypes.byref(task)), task

    def daemon(self, **kwargs):
        daemon = FakeDaemon(**kwargs)
        self.addCleanup(daemon.stop)
        return daemon

    def test_a_restarted_daemon_is_reconnected_to(self):
        first = self.daemon()
        client = self.connect(first)
        self.assertEqual(self.begin(client)[0], 0)
        first.stop()
        second = self.daemon(path=first.path)
        status, task = self.begin(client)
        self.assertEqual(status, 0)
        self.assertEqual(LIB.gpumeter_task_end(task, None), 0)
        self.assertEqual([r["op"] for r in second.requests], ["begin", "end"])

    def test_a_restart_is_said_once_on_stderr(self):
        # Task ids carry the daemon's instance from bit 32 on.
        first = self.daemon(first_task=(7 << 32) | 1)
        client = self.connect(first)
        with StderrCapture() as said:
            self.assertEqual(self.begin(client)[0], 0)
            self.assertEqual(self.begin(client)[0], 0)  # the same daemon: nothing said
            first.stop()
            second = self.daemon(path=first.path, first_task=(9 << 32) | 1)
            self.assertEqual(self.begin(client)[0], 0)
            second.stop()
            third = self.daemon(path=first.path, first_task=(11 << 32) | 1)
            self.assertEqual(self.begin(client)[0], 0)  # said already: once per handle
            third.stop()
        self.assertEqual(said.text().count("restarted"), 1, said.text())
        self.assertIn(f"the daemon at {first.path} restarted", said.text())

    def test_a_reply_that_is_not_the_protocol(self):
        daemon = self.daemon()
        daemon.answer = lambda line: ["not", "an", "object"]
        self.assertEqual(self.begin(self.connect(daemon))[0], E_PROTOCOL)

    def test_each_error_word_has_its_code(self):
        words = {"not_permitted": E_NOT_PERMITTED, "unknown_task": E_UNKNOWN_TASK,
                 "unknown_process": E_UNKNOWN_PROCESS, "limit_reached": E_LIMIT,
                 "internal": E_DAEMON, "a_word_from_the_future": E_PROTOCOL}
        for word, code in words.items():
            with self.subTest(word=word):
                client = self.connect(self.daemon(refuse={"begin": word}))
                status, task = self.begin(client)
                self.assertEqual(status, code)
                self.assertIsNone(task.value)
                self.assertTrue(LIB.gpumeter_strerror(status))

    def test_a_daemon_gone_for_good_is_no_daemon(self):
        daemon = self.daemon()
        client = self.connect(daemon)
        daemon.stop()
        self.assertEqual(self.begin(client)[0], -2)

    def test_requests_carry_the_callers_own_cpu_time(self):
        daemon = self.daemon()
        status, task = self.begin(self.connect(daemon))
        self.assertEqual(status, 0)
        self.assertEqual(LIB.gpumeter_task_end(task, None), 0)
        begin, end = (r["rusage"] for r in daemon.requests)
        for times in (begin, end):
            self.assertEqual(set(times), {"user_us", "system_us"})
        self.assertGreaterEqual(end["user_us"] + end["system_us"],
                                begin["user_us"] + begin["system_us"])

    def slow_ends(self, daemon, seconds):
        """The daemon takes `seconds` to answer each end, as one waiting for figures does."""
        answer = daemon.answer
        daemon.end_arrived = threading.Event()

        def slow(line):
            op = json.loads(line).get("op")
            if op == "end":
                daemon.end_arrived.set()
                time.sleep(seconds)
                daemon.end_answered_at = time.monotonic()
            elif op == "begin" and daemon.end_arrived.is_set():
                daemon.begin_arrived_at = time.monotonic()
            return answer(line)

        daemon.answer = slow

    def begin_while_another_thread_waits(self, daemon, first, second):
        """Thread A ends a task on `first` and waits for the figures; meanwhile this thread
        begins one on `second`. Returns when A's end and this begin returned (monotonic s)."""
        status, task = self.begin(first)
        self.assertEqual(status, 0)
        returned = {}
        result = ctypes.create_string_buffer(512)
        ctypes.memmove(result, ctypes.byref(ctypes.c_size_t(512)), ctypes.sizeof(ctypes.c_size_t))

        def end_and_wait():
            LIB.gpumeter_task_end(task, result)
            returned["end"] = time.monotonic()

        waiter = threading.Thread(target=end_and_wait)
        waiter.start()
        # A's end is under way in the daemon (on a loaded machine, a fixed pause is not enough).
        self.assertTrue(daemon.end_arrived.wait(timeout=30), "A's end never reached the daemon")
        self.assertEqual(self.begin(second)[0], 0)
        returned["begin"] = time.monotonic()
        waiter.join(timeout=30)
        return returned["end"], returned["begin"]

    def test_threads_with_a_handle_each_never_wait_on_one_another(self):
        daemon = self.daemon()
        self.slow_ends(daemon, 1.5)
        end, begin = self.begin_while_another_thread_waits(daemon, self.connect(daemon),
                                                           self.connect(daemon))
        self.assertLess(begin, end, "the begin waited for another handle's end")

    # Seen from the daemon: the begin reaches it only once the end was answered. (The threads'
    # own return times cannot tell: the waiting thread may note its time after the other.)
    def test_a_shared_handle_serialises_its_threads(self):
        daemon = self.daemon()
        self.slow_ends(daemon, 1.5)
        client = self.connect(daemon)
        self.begin_while_another_thread_waits(daemon, client, client)
        self.assertGreaterEqual(daemon.begin_arrived_at, daemon.end_answered_at,
                                "a shared handle sent a request while another waited")


if __name__ == "__main__":
    unittest.main()
