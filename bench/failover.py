#!/usr/bin/env python3
"""Failover figures (issue 35), whole-process: one hub on two clones behind a real
`git daemon` on loopback that takes pushes, each running the real `cn run` with
cn.yaml `origin: {lease: TTL}` — one active, one standing by.

For each lease time in LEASES (seconds) and each of RUNS runs:

  1. idle cost: with nothing to do, the CPU time of the active daemon (it renews the lease
     every third of TTL, one push) and of the standby (it lists origin every quarter of TTL)
     over WINDOW seconds, children (git) included — /proc/PID/stat utime+stime of the
     process plus cutime+cstime of the children it reaped;
  2. failover: SIGKILL the active daemon's process group (the machine dies) and time until
     the standby journals that it took the lease over (it then runs the agent).

The standby may take over only after seeing one lease unchanged for TTL by its own clock,
and the lease was last renewed up to TTL/3 before the kill; so failover is expected within
[2/3 TTL, TTL + TTL/4 + a listing].

Usage: cargo build -p cn && python3 bench/failover.py target/debug/cn [OUTDIR]
       (LEASES="5 10" RUNS=5 WINDOW=30 by default)
Prints medians and writes OUTDIR/failover.json.
"""

import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

CN = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "target/debug/cn")
OUT = os.path.realpath(sys.argv[2] if len(sys.argv) > 2 else "/tmp/cn-bench-failover")
LEASES = [float(x) for x in os.environ.get("LEASES", "5 10").split()]
RUNS = int(os.environ.get("RUNS", "5"))
WINDOW = float(os.environ.get("WINDOW", "30"))
TICK = os.sysconf("SC_CLK_TCK")


def run(*args, cwd=None, check=True):
    return subprocess.run(args, cwd=cwd, check=check, capture_output=True, text=True).stdout


def wait_for(what, deadline, f):
    """Poll f (a file the programs write) until it returns something, or fail at deadline."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        v = f()
        if v:
            return v
        time.sleep(0.02)
    raise SystemExit(f"timed out after {deadline} s waiting for {what}")


def role(hub):
    try:
        with open(os.path.join(hub, "state/run.json")) as f:
            return json.load(f).get("role")
    except (OSError, ValueError):
        return None


def took_over(hub, term):
    try:
        with open(os.path.join(hub, "state/journal.jsonl")) as f:
            for line in f:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                if str(e.get("summary", "")).startswith("took over the hub's lease") and e.get("term", 0) >= term:
                    return e
    except OSError:
        return None
    return None


def cpu_s(pid):
    """CPU seconds of pid and the children it reaped (git pushes, listings)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # After the command: state is fields[0]; utime=13, stime=14, cutime=15, cstime=16 (1-based
    # in proc(5)) are fields[11..14] here.
    return sum(int(x) for x in fields[11:15]) / TICK


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def serve_origin(root):
    """A bare `sigma.git` under root/server behind a `git daemon` on loopback that takes
    pushes: the daemon's process and the origin's URL."""
    served = os.path.join(root, "server")
    os.makedirs(served)
    run("git", "init", "-q", "--bare", os.path.join(served, "sigma.git"))
    port = free_port()
    daemon = subprocess.Popen(
        ["git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack", "--listen=127.0.0.1",
         f"--port={port}", f"--base-path={served}", served],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return daemon, f"git://127.0.0.1:{port}/sigma.git"


def push_first(hub, url):
    """Commit the hub's cn.yaml and make origin at `url` its branch `main`."""
    run("git", "add", "-A", cwd=hub)
    run("git", "commit", "-qm", "sigma: origin", cwd=hub)
    wait_for("git daemon", 10, lambda: subprocess.run(["git", "ls-remote", url], capture_output=True).returncode == 0)
    run("git", "remote", "add", "origin", url, cwd=hub)
    run("git", "push", "-q", "origin", "HEAD:refs/heads/main", cwd=hub)
    run("git", "branch", "-q", "-M", "main", cwd=hub)


def one(ttl, root):
    daemon, url = serve_origin(root)
    procs = []
    try:
        a = os.path.join(root, "a")
        run(CN, "init", a, "--name", "sigma")
        model = os.path.join(root, "model.sh")
        with open(model, "w") as f:
            f.write("cat > /dev/null; printf '```yaml\\ntool: ack\\nreason: done\\n```\\n'\n")
        with open(os.path.join(a, "cn.yaml"), "w") as f:
            f.write(f"name: sigma\nmodels:\n  local:\n    provider: command\n    command: [sh, {model}]\n"
                    f"senses:\n  bind: 127.0.0.1:0\norigin:\n  lease: {ttl}s\n")
        push_first(a, url)
        run(CN, "--hub", a, "lease")
        b = os.path.join(root, "b")
        run(CN, "clone", url, b, "--id-key", os.path.join(a, ".git/cn-id-key"))

        def start(hub):
            p = subprocess.Popen([CN, "--hub", hub, "run"], stdout=subprocess.DEVNULL,
                                 stderr=open(os.path.join(root, os.path.basename(hub) + ".log"), "w"),
                                 start_new_session=True)
            procs.append(p)
            return p

        pa = start(a)
        wait_for("a active", 60, lambda: role(a) == "active")
        pb = start(b)
        wait_for("b standing by", 60, lambda: role(b) == "standby")
        # Idle: one renewal period passed first, so both are in their steady state.
        time.sleep(ttl / 2)
        ca, cb = cpu_s(pa.pid), cpu_s(pb.pid)
        time.sleep(WINDOW)
        idle_a = (cpu_s(pa.pid) - ca) / WINDOW * 60
        idle_b = (cpu_s(pb.pid) - cb) / WINDOW * 60
        killed = time.monotonic()
        os.killpg(pa.pid, signal.SIGKILL)
        pa.wait()
        wait_for("b to take over", ttl * 4 + 30, lambda: took_over(b, 2))
        failover = time.monotonic() - killed
        pb.send_signal(signal.SIGTERM)
        pb.wait(timeout=60)
        return {"failover_s": failover, "idle_active_ms_per_min": idle_a * 1000,
                "idle_standby_ms_per_min": idle_b * 1000}
    finally:
        for p in procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
        daemon.terminate()
        daemon.wait()


def main():
    os.makedirs(OUT, exist_ok=True)
    results = {}
    for ttl in LEASES:
        rows = []
        for i in range(RUNS):
            root = tempfile.mkdtemp(prefix="cn-failover-")
            try:
                rows.append(one(ttl, root))
            finally:
                shutil.rmtree(root, ignore_errors=True)
            print(f"lease {ttl:g} s, run {i + 1}: {rows[-1]}", flush=True)
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        spread = (min(r["failover_s"] for r in rows), max(r["failover_s"] for r in rows))
        results[f"{ttl:g}"] = {"runs": rows, "median": med, "failover_range_s": spread}
        print(f"lease {ttl:g} s: failover median {med['failover_s']:.2f} s "
              f"({spread[0]:.2f}-{spread[1]:.2f} s over {RUNS}); idle CPU per minute: "
              f"active {med['idle_active_ms_per_min']:.0f} ms, standby {med['idle_standby_ms_per_min']:.0f} ms",
              flush=True)
    with open(os.path.join(OUT, "failover.json"), "w") as f:
        json.dump({"cn": CN, "load": os.getloadavg(), "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
