#!/usr/bin/env python3
"""Two builds' routine round trip through `cn chat`, interleaved (what bench/routine_chat.sh
times for one build): a fresh `cn init` hub and a `cn run` daemon for each build, then RUNS
rounds, each one list request ("what is on my list?") and one filing request ("remind me to
water the plants tomorrow at 10am") to each build, the two builds in random order within a
round and a quarter of a second apart (the owner endpoint's rate limit). Three rounds first,
not counted. Whole process, wall clock.

Interleaving is the point: on a machine shared with other work, a build timed after the other
(hyperfine's runs of one command, then the next) takes the load's drift with it.

Usage: python3 bench/routine_chat_ab.py OLD_CN NEW_CN [RUNS]   (default 40)
"""
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

bins = {"old": sys.argv[1], "new": sys.argv[2]}
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 40
work = tempfile.mkdtemp()
hubs, daemons = {}, {}
for k, b in bins.items():
    hub = hubs[k] = f"{work}/{k}"
    subprocess.run([b, "init", hub, "--name", "ada"], check=True, stdout=subprocess.DEVNULL)
    with open(f"{hub}/cn.yaml", "a") as f:
        f.write("\nreflexes:\n  time_zone: UTC\n")
    daemons[k] = subprocess.Popen(
        [b, "--hub", hub, "run"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, CN_LOG="error"),
    )
try:
    for k in bins:
        run_json = f"{hubs[k]}/state/run.json"
        for _ in range(600):
            if os.path.exists(run_json) and "owner_url" in open(run_json).read():
                break
            time.sleep(0.1)
        else:
            sys.exit(f"the {k} daemon did not start")
    asks = {"list": "what is on my list?", "add": "remind me to water the plants tomorrow at 10am"}
    times = {(k, a): [] for k in bins for a in asks}
    for round_ in range(runs + 3):
        for a, text in asks.items():
            order = list(bins)
            random.shuffle(order)
            for k in order:
                time.sleep(0.25)
                t0 = time.perf_counter()
                subprocess.run([bins[k], "--hub", hubs[k], "chat", text], check=True, stdout=subprocess.DEVNULL)
                if round_ >= 3:
                    times[(k, a)].append((time.perf_counter() - t0) * 1000)
finally:
    for d in daemons.values():
        d.terminate()
        d.wait()
for a in asks:
    for k in bins:
        t = sorted(times[(k, a)])
        print(
            f"{a} {k}: median {statistics.median(t):.1f} ms, p25 {t[len(t) // 4]:.1f},"
            f" p75 {t[3 * len(t) // 4]:.1f}, min {t[0]:.1f} over {len(t)} runs"
        )
