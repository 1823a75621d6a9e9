#!/usr/bin/env python3
"""`cn sync` of a hub with many peers (issue 35), whole-process: hub x has PEERS peers, each
a hub whose repository a real `git daemon` serves on loopback; x's own origin is served
there too (it pushes its receipts through it). Between x and the server sits a TCP proxy
that adds latency: DELAY_MS/2 on every chunk each way and one DELAY_MS round trip at
connect (this kernel has no netem; the proxy is the stand-in, and it delays every packet
train, which is what a round trip costs git's protocol).

Measured, at DELAY_MS 0 and 50 (LATENCIES), RUNS times each, median:

  1. nothing new: `cn --hub x sync` when no peer holds mail for x (one listing per peer);
  2. one mail each: every peer mailed x once (sent beforehand, without the proxy); x's sync
     takes the PEERS mails, files them, and publishes PEERS receipts to its origin.

Usage: cargo build -p cn && python3 bench/fleet_sync.py target/debug/cn [OUTDIR]
       (PEERS=100 RUNS=3 LATENCIES="0 50")
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
DELAY = {"ms": 0}
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


def timed(*args):
    """Wall time, and CPU time (user + system) of cn and every git it ran, and the output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    out = subprocess.run(args, capture_output=True, text=True)
    took = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return took, out


def main():
    os.makedirs(OUT, exist_ok=True)
    root = tempfile.mkdtemp(prefix="cn-fleet-sync-")
    served = os.path.join(root, "srv")
    os.makedirs(served)
    names = [f"p{i:03}" for i in range(PEERS)]
    for n in ["x"] + names:
        run("git", "init", "-q", "--bare", os.path.join(served, f"{n}.git"))
    port, pport = free_port(), free_port()
    daemon = subprocess.Popen(
        ["git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack", "--max-connections=0",
         "--listen=127.0.0.1", f"--port={port}", f"--base-path={served}", served],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    proxy(pport, port)
    try:
        x = os.path.join(root, "x")
        run(CN, "init", x, "--name", "x")
        run("git", "remote", "add", "origin", f"git://127.0.0.1:{pport}/x.git", cwd=x)
        yaml_path = os.path.join(x, "cn.yaml")
        with open(yaml_path) as f:
            yaml = f.read()
        listed = "peers:\n" + "".join(f"  {n}: git://127.0.0.1:{pport}/{n}.git\n" for n in names)
        with open(yaml_path, "w") as f:
            f.write(yaml.replace("peers: {}\n", listed))
        peers = []
        for n in names:
            p = os.path.join(root, n)
            run(CN, "init", p, "--name", n)
            run("git", "remote", "add", "origin", os.path.join(served, f"{n}.git"), cwd=p)
            run(CN, "--hub", p, "peer", "add", "x", os.path.join(served, "x.git"))
            peers.append(p)
        print(f"{PEERS} peers set up", flush=True)
        # The first sync of x (with nothing for it) creates its record.
        took, out = timed(CN, "--hub", x, "sync")
        assert out.returncode == 0, out.stderr
        results = {}
        for ms in LATENCIES:
            idle, mail, idle_cpu, mail_cpu = [], [], [], []
            for r in range(RUNS):
                DELAY["ms"] = ms
                took, out = timed(CN, "--hub", x, "sync", "--json")
                assert out.returncode == 0, out.stderr
                idle.append(took)
                idle_cpu.append(CPU[-1])
                # One mail from each peer, sent without the proxy.
                DELAY["ms"] = 0
                for p in peers:
                    run(CN, "--hub", p, "send", "--to", "x", "--message", f"round {ms}/{r}", "--body", "hello")
                    run(CN, "--hub", p, "sync")
                DELAY["ms"] = ms
                took, out = timed(CN, "--hub", x, "sync", "--json")
                assert out.returncode == 0, out.stderr
                got = json.loads(out.stdout)
                received = got.get("received", [])
                n = len(received) if isinstance(received, list) else received
                assert n == PEERS, f"took {n} mails, not {PEERS}: {out.stdout[:500]}"
                assert len(got["receipts"]) == PEERS and not got["errors"], out.stdout[:2000]
                mail.append(took)
                mail_cpu.append(CPU[-1])
                # The peers release their mail, x retires its receipts (outside the timing).
                DELAY["ms"] = 0
                for p in peers:
                    run(CN, "--hub", p, "sync")
                run(CN, "--hub", x, "sync")
                print(f"{ms} ms: nothing new {idle[-1]:.2f} s, one mail each {mail[-1]:.2f} s", flush=True)
            cpu = statistics.median(idle_cpu)
            results[ms] = {"nothing_new_s": statistics.median(idle), "one_mail_each_s": statistics.median(mail),
                           "nothing_new_cpu_s": cpu, "one_mail_each_cpu_s": statistics.median(mail_cpu),
                           "runs": {"nothing_new": idle, "one_mail_each": mail, "nothing_new_cpu": idle_cpu,
                                    "one_mail_each_cpu": mail_cpu}}
            # What syncing adds to an idle daemon: one such sync every minute (cn init's
            # `senses.peers.every`), CPU of cn and its git processes.
            print(f"round trip {ms} ms, {PEERS} peers: nothing new {results[ms]['nothing_new_s']:.2f} s "
                  f"(CPU {cpu:.2f} s, {cpu * 1440 / 60:.1f} CPU-minutes a day at one sync a minute), "
                  f"one mail each {results[ms]['one_mail_each_s']:.2f} s (CPU {statistics.median(mail_cpu):.2f} s) "
                  f"(medians of {RUNS})", flush=True)
        with open(os.path.join(OUT, "fleet_sync.json"), "w") as f:
            json.dump({"cn": CN, "peers": PEERS, "load": os.getloadavg(), "results": results}, f, indent=2)
    finally:
        daemon.terminate()
        daemon.wait()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
