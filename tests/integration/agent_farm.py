# SPDX-License-Identifier: MIT
"""Many fake agents in one process: an asyncio loop on its own thread listens on one loopback
port per agent, and each port answers GET /api/v1/status its own way. Good agents send a status
document whose `time_us` moves on with every answer (so that the master sees them fresh); the
hostile ones misbehave the ways a broken or malicious agent can:

  flood     answers "200 OK" and then streams header lines forever, as fast as it may
  trickle   answers "200 OK" and then one header line every 0.5 s, forever
  endless   answers "200 OK" with headers and then a body that never ends
  silent    accepts the connection and never answers

Run as a script it serves until killed and prints {"kind": [port, ...]} on one line, for
measuring a master by hand:  python3 agent_farm.py --good 10 --flood 1 --trickle 1
"""

import argparse
import asyncio
import json
import sys
import threading
import time

KINDS = ("good", "flood", "trickle", "endless", "silent")
TIME_US_MARK = "@@time_us@@"


def _status_template(document):
    """The document as text with its time_us left as a mark (a quoted string) to fill in."""
    document = dict(document)
    document["time_us"] = TIME_US_MARK
    return json.dumps(document)


class _Counters:
    def __init__(self):
        self.requests = {}  # port -> requests read (good agents: answers sent)
        self.open = {kind: 0 for kind in KINDS}  # connections open now, by kind
        self.lock = threading.Lock()

    def count(self, port):
        with self.lock:
            self.requests[port] = self.requests.get(port, 0) + 1


async def _read_request(reader):
    """Reads one request's head; False when the peer went away first."""
    try:
        await reader.readuntil(b"\r\n\r\n")
        return True
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        return False


async def _good(reader, writer, template):
    body = template.replace(f'"{TIME_US_MARK}"', str(time.time_ns() // 1000), 1).encode()
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                 b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    await writer.drain()


async def _flood(reader, writer, _):
    writer.write(b"HTTP/1.1 200 OK\r\n")
    line = b"X-Filler: " + b"a" * 1000 + b"\r\n"
    while True:
        writer.write(line * 64)
        await writer.drain()


async def _trickle(reader, writer, _):
    writer.write(b"HTTP/1.1 200 OK\r\n")
    number = 0
    while True:
        writer.write(b"X-Line-%d: slowly\r\n" % number)
        await writer.drain()
        number += 1
        await asyncio.sleep(0.5)


async def _endless(reader, writer, _):
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n[")
    chunk = b"0," * 32768
    while True:
        writer.write(chunk)
        await writer.drain()


async def _silent(reader, writer, _):
    await asyncio.sleep(3600)


_BEHAVIOUR = {"good": _good, "flood": _flood, "trickle": _trickle, "endless": _endless,
              "silent": _silent}


class AgentFarm:
    """Starts `counts[kind]` agents of each kind; ports[kind] lists their ports. With
    armed=False the hostile agents answer like good ones until arm() is called."""

    def __init__(self, counts, status_document, armed=True):
        self.armed = armed
        self.template = _status_template(status_document)
        self.counters = _Counters()
        self.ports = {kind: [] for kind in KINDS}
        self.loop = asyncio.new_event_loop()
        self.servers = []
        started = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(counts, started), daemon=True)
        self.thread.start()
        if not started.wait(60):
            raise RuntimeError("the agent farm did not start within 60 s")

    def _run(self, counts, started):
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._start(counts))
        started.set()
        self.loop.run_forever()

    async def _start(self, counts):
        for kind in KINDS:
            for _ in range(counts.get(kind, 0)):
                server = await asyncio.start_server(self._handler(kind), "127.0.0.1", 0,
                                                    backlog=64)
                self.servers.append(server)
                self.ports[kind].append(server.sockets[0].getsockname()[1])

    def arm(self):
        self.armed = True

    def _handler(self, kind):
        async def handle(reader, writer):
            port = writer.get_extra_info("sockname")[1]
            self.counters.open[kind] += 1  # only the loop's thread writes it
            try:
                if await _read_request(reader):
                    self.counters.count(port)
                    behaviour = _BEHAVIOUR[kind if self.armed else "good"]
                    await behaviour(reader, writer, self.template)
            except (ConnectionError, asyncio.CancelledError):
                pass  # the master hung up: what a bounded client does
            finally:
                self.counters.open[kind] -= 1
                writer.close()
        return handle

    def requests(self, port):
        with self.counters.lock:
            return self.counters.requests.get(port, 0)

    def open_connections(self, kind):
        return self.counters.open[kind]

    def close(self):
        async def stop():
            for server in self.servers:
                server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()
        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)
        self.loop.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for kind in KINDS:
        parser.add_argument(f"--{kind}", type=int, default=0, help=f"how many {kind} agents")
    parser.add_argument("--status", help="a status document (JSON file) for the good agents")
    args = parser.parse_args()
    document = ({"schema_version": 1, "host": "fake", "time_us": 0, "gpus": []}
                if args.status is None else json.load(open(args.status)))
    farm = AgentFarm({kind: getattr(args, kind) for kind in KINDS}, document)
    print(json.dumps(farm.ports), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        farm.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
