#!/usr/bin/env python3
"""Peer mail figures (issue 19), whole-process: the real `cn sync` on real hubs whose
repositories are bare repositories on disk (each hub pushes only to its own; peers read).

  1. two hubs, 100 messages a -> b: `cn --hub a sync && cn --hub b sync` (target <= 1 s),
     and the whole cycle including a's release and b's receipt retirement;
  2. growth with mail: one a -> b sync pair of 10, 100, 1,000 messages;
  3. growth with peers: a hub with 1, 2, 4, 8, 16 peers, 10 messages from each;
  4. growth with history: the 10-message sync again after 1,000 (then 3,000) messages were
     delivered, released and retired between the same two hubs;
  5. five hubs, 1,000 messages in all directions (50 from each hub to each other), synced
     in rounds until nothing moves: every message delivered exactly once.

Usage: cargo build --release -p cn && python3 bench/peers.py target/release/cn [OUTDIR]
Prints a table of medians (ms) and writes OUTDIR/peers.json.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import time

CN = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "target/release/cn")
OUT = os.path.realpath(sys.argv[2] if len(sys.argv) > 2 else "/tmp/cn-bench-peers")
RUNS = int(os.environ.get("RUNS", "5"))
# QUICK=1: small sizes, to check the script itself (not figures). PAIR_ONLY=1: part 1-2 only.
QUICK = os.environ.get("QUICK") == "1"
PAIR_ONLY = os.environ.get("PAIR_ONLY") == "1"
ENV = dict(os.environ, CN_LOG="error")
ENV.pop("CN_HUB", None)


def run(*args, cwd=None):
    p = subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({p.returncode}): {p.stdout}{p.stderr}")
    return p.stdout


def cn(hub, *args):
    return run(CN, "--hub", hub, *args)


def timed(*cmds):
    t = time.perf_counter()
    for c in cmds:
        cn(*c)
    return (time.perf_counter() - t) * 1000


def hub(root, name):
    path = os.path.join(root, name)
    run(CN, "init", path, "--name", name)
    bare = os.path.join(root, name + ".git")
    run("git", "init", "-q", "--bare", bare)
    run("git", "-C", path, "remote", "add", "origin", bare)
    return path, bare


def connect(root, hubs):
    for a in hubs:
        for b in hubs:
            if a != b:
                cn(os.path.join(root, a), "peer", "add", b, os.path.join(root, b + ".git"))


SEQ = [0]


def fill(root, frm, to, n):
    """n mails from `frm` to `to` in frm's outbox, as `cn send` leaves them."""
    outbox = os.path.join(root, frm, "threads/mail/outbox")
    for _ in range(n):
        SEQ[0] += 1
        mid = f"m{SEQ[0]:07d}-{frm}-{to}"
        with open(os.path.join(outbox, mid + ".md"), "w") as f:
            f.write(f"---\nid: {mid}\nto: {to}\nfrom: {frm}\nthread: {mid}\ncreated: 2026-11-23T15:00:00Z\n---\n\nmessage {SEQ[0]}\n")


def inbox_count(root, name):
    return len([n for n in os.listdir(os.path.join(root, name, "threads/inbox")) if n.endswith(".md")])


def drain(root, hubs, max_rounds=6):
    """Sync every hub in turn until a whole round moves nothing."""
    for _ in range(max_rounds):
        moved = False
        for h in hubs:
            r = json.loads(cn(os.path.join(root, h), "sync", "--json"))
            if r["errors"]:
                raise SystemExit(f"{h}: {r['errors']}")
            moved |= any(r[k] for k in ("sent", "received", "rejected", "receipts", "released"))
        if not moved:
            return
    raise SystemExit("mail still moving after the last round")


def fresh(name):
    root = os.path.join(OUT, name)
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    return root


def pair_sync(root, n):
    """Medians over RUNS of: a's sync that pushes n mails + b's that takes them; the cycle."""
    a, b = os.path.join(root, "a"), os.path.join(root, "b")
    half, cycle = [], []
    for _ in range(RUNS):
        fill(root, "a", "b", n)
        t = timed((a, "sync"), (b, "sync"))
        half.append(t)
        cycle.append(t + timed((a, "sync"), (b, "sync")))
    return statistics.median(half), statistics.median(cycle)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    results = {}

    # 1 and 2: two hubs, growth with mail.
    for n in (10, 100) if QUICK else (10, 100, 1000):
        root = fresh(f"pair{n}")
        hub(root, "a"), hub(root, "b")
        connect(root, ["a", "b"])
        h, c = pair_sync(root, n)
        results[f"pair_{n}"] = {"a+b_ms": h, "cycle_ms": c}
        print(f"{n:5d} messages a->b: a sync + b sync {h:8.1f} ms   whole cycle {c:8.1f} ms", flush=True)

    if PAIR_ONLY:
        return
    # 3: growth with peers (10 messages from each to hub 'r').
    for k in (1, 2) if QUICK else (1, 2, 4, 8, 16):
        root = fresh(f"peers{k}")
        names = ["r"] + [f"p{i}" for i in range(k)]
        for nm in names:
            hub(root, nm)
        for nm in names[1:]:
            cn(os.path.join(root, "r"), "peer", "add", nm, os.path.join(root, nm + ".git"))
            cn(os.path.join(root, nm), "peer", "add", "r", os.path.join(root, "r.git"))
        times, idle = [], []
        for _ in range(RUNS):
            for nm in names[1:]:
                fill(root, nm, "r", 10)
                cn(os.path.join(root, nm), "sync")
            times.append(timed((os.path.join(root, "r"), "sync")))
            idle.append(timed((os.path.join(root, "r"), "sync")))
            for nm in names[1:]:
                cn(os.path.join(root, nm), "sync")
        results[f"peers_{k}"] = {"receive_ms": statistics.median(times), "idle_ms": statistics.median(idle)}
        print(f"{k:5d} peers x 10 messages: receiver's sync {statistics.median(times):8.1f} ms   "
              f"with nothing new {statistics.median(idle):8.1f} ms", flush=True)

    # 4: growth with history.
    root = fresh("history")
    hub(root, "a"), hub(root, "b")
    connect(root, ["a", "b"])
    before = pair_sync(root, 10)
    delivered = 0
    for total in (200,) if QUICK else (1000, 3000):
        while delivered < total:
            step = 100 if QUICK else 500
            fill(root, "a", "b", step)
            drain(root, ["a", "b"])
            delivered += step
        after = pair_sync(root, 10)
        results[f"history_{total}"] = {"before_a+b_ms": before[0], "after_a+b_ms": after[0],
                                       "before_cycle_ms": before[1], "after_cycle_ms": after[1]}
        print(f"10 messages after {total} delivered: a+b {after[0]:8.1f} ms (before {before[0]:.1f})   "
              f"cycle {after[1]:8.1f} ms (before {before[1]:.1f})", flush=True)

    # 5: five hubs, 1,000 messages in all directions.
    root = fresh("five")
    names = ["h1", "h2", "h3", "h4", "h5"]
    for nm in names:
        hub(root, nm)
    connect(root, names)
    for a in names:
        for b in names:
            if a != b:
                fill(root, a, b, 5 if QUICK else 50)
    t = time.perf_counter()
    drain(root, names, max_rounds=8)
    total = (time.perf_counter() - t) * 1000
    ids = []
    for nm in names:
        d = os.path.join(root, nm, "threads/inbox")
        ids += [n for n in os.listdir(d) if n.endswith(".md")]
    expected = 100 if QUICK else 1000
    assert len(ids) == expected and len(set(ids)) == expected, (len(ids), len(set(ids)))
    left = run("git", "-C", os.path.join(root, "h1.git"), "for-each-ref", "refs/heads/")
    results["five_hubs_1000"] = {"drain_ms": total, "delivered": len(ids), "refs_left_h1": len(left.splitlines())}
    print(f"five hubs, {expected} messages: drained in {total:.0f} ms; {len(ids)} delivered, each once; "
          f"{len(left.splitlines())} branches left in h1.git", flush=True)

    with open(os.path.join(OUT, "peers.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
