#!/usr/bin/env python3
"""`cn sync` of a hub with many peers (issue 35), whole-process: hub x has PEERS peers, each
a hub whose repository a real git server serves; x's own origin is served there too (it
pushes its receipts through it).

WIRE=netns (the default; root): x runs in one network namespace, the server in another,
joined by bench/wire.py, a delay line on TUN devices that holds every packet half the round
trip each way — what netem would do (this kernel has no sch_netem). TCP runs end to end.
SERVER says which server: `daemon`, a standalone `git daemon` (listen backlog 5, as git
ships it), or `socket`, `git daemon --inetd` started for each connection by
systemd-socket-activate (systemd's socket activation, how distributions' git-daemon.socket
runs it: the listening socket has the kernel's full backlog).

WIRE=proxy: the old stand-in, a TCP proxy on loopback that delays every chunk it reads by
half the round trip each way and the connect by a whole one.

Measured, at DELAY_MS 0 and 50 (LATENCIES), RUNS times each, median:

  1. nothing new: `cn --hub x sync` when no peer holds mail for x (one listing per peer);
  2. one mail each: every peer mailed x once (sent beforehand, without the proxy); x's sync
     takes the PEERS mails, files them, and publishes PEERS receipts to its origin.

Usage: cargo build -p cn && python3 bench/fleet_sync.py target/debug/cn [OUTDIR]
       (PEERS=100 RUNS=3 LATENCIES="0 50" WIRE=netns SERVER=daemon AT_ONCE=16)
"""

import asyncio
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

CN = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "target/debug/cn")
OUT = os.path.realpath(sys.argv[2] if len(sys.argv) > 2 else "/tmp/cn-bench-fleet-sync")
PEERS = int(os.environ.get("PEERS", "100"))
RUNS = int(os.environ.get("RUNS", "3"))
LATENCIES = [int(x) for x in os.environ.get("LATENCIES", "0 50").split()]
WIRE = os.environ.get("WIRE", "netns")
SERVER = os.environ.get("SERVER", "daemon")
# cn.yaml `mail.peers_at_once` for x, each measured in turn ("": cn's default).
AT_ONCE = os.environ.get("AT_ONCE", "").split() or [""]
DELAY = {"ms": 0}
NS = (f"cnsync-a{os.getpid()}", f"cnsync-b{os.getpid()}")
HERE = os.path.dirname(os.path.abspath(__file__))
# CPU seconds of each timed run (cn and its children), in order.
CPU = []


def run(*args, cwd=None):
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


async def pipe(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if DELAY["ms"]:
                await asyncio.sleep(DELAY["ms"] / 2000)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        try:
            writer.close()
        except Exception:
            pass


async def handle(target, reader, writer):
    if DELAY["ms"]:
        await asyncio.sleep(DELAY["ms"] / 1000)  # the handshake's round trip
    try:
        r2, w2 = await asyncio.open_connection("127.0.0.1", target)
    except OSError:
        writer.close()
        return
    await asyncio.gather(pipe(reader, w2), pipe(r2, writer))


def proxy(listen, target):
    loop = asyncio.new_event_loop()

    async def serve():
        server = await asyncio.start_server(lambda r, w: handle(target, r, w), "127.0.0.1", listen, backlog=512)
        async with server:
            await server.serve_forever()

    threading.Thread(target=lambda: loop.run_until_complete(serve()), daemon=True).start()


class Wire:
    """Two network namespaces and bench/wire.py between them; the server's in the second."""

    def __init__(self):
        for ns in NS:
            run("ip", "netns", "add", ns)
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "wire.py"), *NS, "0"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "ready", "the wire did not come up"

    def delay(self, ms):
        self.proc.stdin.write(f"{ms}\n")
        self.proc.stdin.flush()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()
        for ns in NS:
            subprocess.run(["ip", "netns", "del", ns])


def timed(*args):
    """Wall time, and CPU time (user + system) of cn and every git it ran, and the output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    out = subprocess.run(args, capture_output=True, text=True)
    took = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return took, out


def measure(ms, at, x, peers, set_delay):
    """RUNS syncs of x at `ms` round trip with nothing new, and RUNS with one mail from each peer."""
    idle, mail, idle_cpu, mail_cpu, failed = [], [], [], [], []
    for r in range(RUNS):
        set_delay(ms)
        took, out = timed(*at, CN, "--hub", x, "sync", "--json")
        assert out.returncode == 0, out.stderr
        idle.append(took)
        idle_cpu.append(CPU[-1])
        # One mail from each peer, sent without the wire.
        set_delay(0)
        for p in peers:
            run(CN, "--hub", p, "send", "--to", "x", "--message", f"round {ms}/{r}", "--body", "hello")
            run(CN, "--hub", p, "sync")
        set_delay(ms)
        took, out = timed(*at, CN, "--hub", x, "sync", "--json")
        assert out.returncode == 0, out.stderr
        got = json.loads(out.stdout)
        received = got.get("received", [])
        n = len(received) if isinstance(received, list) else received
        if n == PEERS and len(got["receipts"]) == PEERS and not got["errors"]:
            mail.append(took)
            mail_cpu.append(CPU[-1])
        else:
            # Reported, not timed: the next sync takes what this one left (checked below).
            failed.append({"took": took, "received": n, "errors": got["errors"]})
            print(f"{ms} ms: a sync took {n} of {PEERS} mails: {got['errors']}", flush=True)
        # The peers release their mail, x retires its receipts (outside the timing).
        set_delay(0)
        for p in peers:
            run(CN, "--hub", p, "sync")
        again = json.loads(run(*at, CN, "--hub", x, "sync", "--json"))
        assert len(again.get("received", [])) == PEERS - n and not again["errors"], again
        print(f"{ms} ms: nothing new {idle[-1]:.2f} s, one mail each {mail[-1] if mail else 0:.2f} s", flush=True)
    return {"nothing_new_s": statistics.median(idle), "one_mail_each_s": statistics.median(mail or [0]),
            "failed_syncs": failed,
            "nothing_new_cpu_s": statistics.median(idle_cpu), "one_mail_each_cpu_s": statistics.median(mail_cpu or [0]),
            "runs": {"nothing_new": idle, "one_mail_each": mail, "nothing_new_cpu": idle_cpu,
                     "one_mail_each_cpu": mail_cpu}}


def main():
    os.makedirs(OUT, exist_ok=True)
    root = tempfile.mkdtemp(prefix="cn-fleet-sync-")
    served = os.path.join(root, "srv")
    os.makedirs(served)
    names = [f"p{i:03}" for i in range(PEERS)]
    for n in ["x"] + names:
        run("git", "init", "-q", "--bare", os.path.join(served, f"{n}.git"))
    wire = None
    if WIRE == "netns":
        wire = Wire()
        host, port, at = "10.77.0.2", 9418, ["ip", "netns", "exec", NS[0]]
        within = ["ip", "netns", "exec", NS[1]]
        set_delay = wire.delay
    else:
        host, port, at, within = "127.0.0.1", free_port(), [], []
        set_delay = lambda ms: DELAY.update(ms=ms)  # noqa: E731
    served_by = ["--export-all", "--enable=receive-pack", f"--base-path={served}", served]
    if SERVER == "socket":
        server = within + ["systemd-socket-activate", f"--listen={host}:{port}", "--accept", "--inetd",
                           "git", "daemon", "--inetd", *served_by]
    else:
        server = within + ["git", "daemon", "--reuseaddr", "--max-connections=0", f"--listen={host}",
                           f"--port={port}", *served_by]
    daemon = subprocess.Popen(server, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if wire is None:
        pport = free_port()
        proxy(pport, port)
        host, port = "127.0.0.1", pport
    try:
        x = os.path.join(root, "x")
        run(CN, "init", x, "--name", "x")
        run("git", "remote", "add", "origin", f"git://{host}:{port}/x.git", cwd=x)
        yaml_path = os.path.join(x, "cn.yaml")
        with open(yaml_path) as f:
            yaml = f.read()
        listed = "peers:\n" + "".join(f"  {n}: git://{host}:{port}/{n}.git\n" for n in names)
        yaml = yaml.replace("peers: {}\n", listed)
        with open(yaml_path, "w") as f:
            f.write(yaml)
        peers = []
        for n in names:
            p = os.path.join(root, n)
            run(CN, "init", p, "--name", n)
            run("git", "remote", "add", "origin", os.path.join(served, f"{n}.git"), cwd=p)
            run(CN, "--hub", p, "peer", "add", "x", os.path.join(served, "x.git"))
            peers.append(p)
        print(f"{PEERS} peers set up", flush=True)
        # The first sync of x (with nothing for it) creates its record.
        took, out = timed(*at, CN, "--hub", x, "sync")
        assert out.returncode == 0, out.stderr
        results = {}
        for n_at_once in AT_ONCE:
            with open(yaml_path, "w") as f:
                f.write(yaml + (f"mail: {{peers_at_once: {n_at_once}}}\n" if n_at_once else ""))
            for ms in LATENCIES:
                key = f"{n_at_once or 'default'} at once, {ms} ms"
                results[key] = measure(ms, at, x, peers, set_delay)
                got = results[key]
                # What syncing adds to an idle daemon: one such sync every minute (cn init's
                # `senses.peers.every`), CPU of cn and its git processes.
                cpu = got["nothing_new_cpu_s"]
                print(f"{key}, {PEERS} peers ({WIRE}, {SERVER}): nothing new {got['nothing_new_s']:.2f} s "
                      f"(CPU {cpu:.2f} s, {cpu * 1440 / 60:.1f} CPU-minutes a day at one sync a minute), "
                      f"one mail each {got['one_mail_each_s']:.2f} s (CPU {got['one_mail_each_cpu_s']:.2f} s) "
                      f"(medians of {RUNS - len(got['failed_syncs'])}; {len(got['failed_syncs'])} failed)", flush=True)
        with open(os.path.join(OUT, "fleet_sync.json"), "w") as f:
            json.dump({"cn": CN, "peers": PEERS, "wire": WIRE, "server": SERVER, "at_once": AT_ONCE,
                       "load": os.getloadavg(), "results": results}, f, indent=2)
    finally:
        daemon.terminate()
        daemon.wait()
        if wire is not None:
            wire.close()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
