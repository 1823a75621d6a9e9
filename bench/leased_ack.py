#!/usr/bin/env python3
"""What the carry costs a message (issue 35): the owner endpoint's answer (202) to an owner
message, whole round trip over loopback, with the real `cn run` of one hub in three modes —
no origin; `origin: {push: true}` (pushed, unleased: the 202 does not wait for origin);
`origin: {lease: 30s}` (the 202 waits for a push that carries the message to origin's
`refs/cn/attention`). Origin is a real `git daemon` on loopback that takes pushes.

For each mode: N owner messages ("thanks!", answered by a reflex, so the queue stays short),
one every 0.25 s (the owner endpoint takes 5 a second after a burst), each timed from the
request's start to its 202. Prints the median and p95 of each mode.

Usage: cargo build --release -p cn && python3 bench/leased_ack.py target/release/cn
       (N=60 by default)
"""

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from failover import CN, push_first, role, run, serve_origin, wait_for  # noqa: E402

N = int(os.environ.get("N", "60"))


def owner_url(hub):
    try:
        with open(os.path.join(hub, "state/run.json")) as f:
            return json.load(f).get("owner_url")
    except (OSError, ValueError):
        return None


def one(mode, root):
    daemon, url = serve_origin(root)
    proc = None
    try:
        a = os.path.join(root, "a")
        run(CN, "init", a, "--name", "sigma")
        origin = {"none": "", "push": "origin:\n  push: true\n", "lease": "origin:\n  lease: 30s\n"}[mode]
        with open(os.path.join(a, "cn.yaml"), "w") as f:
            f.write(f"name: sigma\nsenses:\n  bind: 127.0.0.1:0\n{origin}")
        push_first(a, url)
        proc = subprocess.Popen([CN, "--hub", a, "run"], stdout=subprocess.DEVNULL,
                                stderr=open(os.path.join(root, "a.log"), "w"), start_new_session=True)
        if mode == "lease":
            wait_for("a active", 60, lambda: role(a) == "active")
        endpoint = wait_for("the owner endpoint", 60, lambda: owner_url(a))
        with open(os.path.join(a, ".git/cn-owner-token")) as f:
            token = f.read().strip()
        times = []
        for _ in range(N):
            req = urllib.request.Request(endpoint, data=json.dumps({"text": "thanks!"}).encode(),
                                         headers={"content-type": "application/json",
                                                  "authorization": f"Bearer {token}"})
            t = time.perf_counter()
            with urllib.request.urlopen(req, timeout=60) as r:
                assert r.status == 202, r.status
                r.read()
            times.append((time.perf_counter() - t) * 1000)
            time.sleep(0.25)
        return times
    finally:
        if proc is not None and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        daemon.terminate()
        daemon.wait()


def main():
    print(f"{CN}, load {os.getloadavg()[0]:.1f}", flush=True)
    for mode in ["none", "push", "lease"]:
        root = tempfile.mkdtemp(prefix="cn-leased-ack-")
        try:
            t = sorted(one(mode, root))
        finally:
            shutil.rmtree(root, ignore_errors=True)
        p95 = t[int(len(t) * 0.95) - 1]
        print(f"{mode:6} 202 after: median {statistics.median(t):.1f} ms, p95 {p95:.1f} ms, "
              f"min {t[0]:.1f} ms ({len(t)} messages)", flush=True)


if __name__ == "__main__":
    main()
