#!/usr/bin/env python3
"""Memory and time under hostile input (issue 34), whole-process, with the real `cn`:

  1. `cn sync` taking a peer's mail of SIZE MB (default 200): incompressible bytes, and the
     same size of zeros (a pack of a few hundred KB that inflates to SIZE MB) — peak RSS of
     `cn` and of its largest child (git), the growth of `.git`, the wall time; then the
     second sync (the mail must not be fetched again);
  2. `cn sync` taking a mail whose frontmatter is 200,000 nested `[` — its wall time, and
     how long the owner's `cn out` waits meanwhile (the hub lock);
  3. the owner endpoint (`cn run`) under 300 half-sent 2 MB bodies without the token, 300
     connections stalled mid-header, and 100 half-sent GitHub deliveries: the daemon's
     resident memory before and its peak (`VmHWM`) after each.

Usage: python3 bench/hostile.py path/to/cn [SIZE_MB]
Prints one line per figure and writes /tmp/cn-bench-hostile/hostile.json.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time

CN = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "target/release/cn")
SIZE = int(sys.argv[2]) if len(sys.argv) > 2 else 200
OUT = "/tmp/cn-bench-hostile"
ENV = dict(os.environ, CN_LOG="error")
ENV.pop("CN_HUB", None)


def run(*args, cwd=None, env=ENV):
    p = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, args))} failed ({p.returncode}): {p.stdout}{p.stderr}")
    return p.stdout


def git(*args, cwd=None):
    return run("git", *args, cwd=cwd)


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_size
            except OSError:
                pass
    return total


WRAPPER = r"""
import json, os, resource, subprocess, sys, time
t = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
out, err = p.communicate()
wall = time.perf_counter() - t
# Only cn and what it ran are this wrapper's children: the largest peak among them.
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"code": p.returncode, "wall": wall, "children_kb": children, "out": out.decode(), "err": err.decode()}))
"""


def measured(*args):
    """Run `args` under a wrapper process; (wall s, own peak RSS MB, the largest peak of cn and
    everything it ran in MB, stdout). `cn`'s own peak is read with `/usr/bin/time`."""
    timed = ["/usr/bin/time", "-f", "%M", *args]
    p = subprocess.run([sys.executable, "-c", WRAPPER, *timed], env=ENV, capture_output=True, text=True)
    r = json.loads(p.stdout)
    if r["code"] != 0:
        raise SystemExit(f"{args} failed: {r['out']}{r['err']}")
    own_kb = int(r["err"].strip().splitlines()[-1])
    return r["wall"], own_kb / 1024, r["children_kb"] / 1024, r["out"]


def hub(root, name):
    path = os.path.join(root, name)
    run(CN, "init", path, "--name", name)
    bare = os.path.join(root, f"{name}.git")
    git("init", "-q", "--bare", bare)
    git("remote", "add", "origin", bare, cwd=path)
    return path, bare


def push_mail(root, bare, to, tid, body):
    """A mail branch `cn-mail/TO/TID` in `bare`, its envelope true to its bytes."""
    import hashlib

    head = f"---\nid: {tid}\nto: {to}\nfrom: a\nthread: {tid}\ncreated: 2026-01-01T00:00:00Z\n---\n\n".encode()
    data = body if body.startswith(b"---\n") else head + body
    scratch = os.path.join(root, f"scratch-{tid}")
    git("init", "-q", scratch)
    with open(os.path.join(scratch, f"{tid}.md"), "wb") as f:
        f.write(data)
    git("add", "-A", cwd=scratch)
    envelope = (
        f"mail {tid} from a to {to}\n\ncn-envelope: 1\nfrom: a\nto: {to}\nid: {tid}\n"
        f"created: 2026-01-01T00:00:00Z\nsha256: {hashlib.sha256(data).hexdigest()}\n"
    )
    git("-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", envelope, cwd=scratch)
    git("push", "-q", bare, f"HEAD:refs/heads/cn-mail/{to}/{tid}", cwd=scratch)
    shutil.rmtree(scratch)


DAEMONS = []


def served(root):
    """`git daemon` serving the bare repositories under `root` read-only: the peer's side of a
    fetch (its upload-pack) runs there, not as a child of the `cn` measured."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    d = subprocess.Popen(
        ["git", "daemon", "--reuseaddr", f"--port={port}", "--listen=127.0.0.1", "--export-all", f"--base-path={root}", root],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    DAEMONS.append(d)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return port
        except OSError:
            time.sleep(0.05)
    raise SystemExit("git daemon did not start")


def pair(root):
    a, a_bare = hub(root, "a")
    b, b_bare = hub(root, "b")
    port = served(root)
    run(CN, "--hub", b, "peer", "add", "a", f"git://127.0.0.1:{port}/a.git")
    run(CN, "--hub", a, "peer", "add", "b", b_bare)
    return a, a_bare, b


def sync_figures(results):
    for kind in ("noise", "zeros"):
        root = os.path.join(OUT, f"sync-{kind}")
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        a, a_bare, b = pair(root)
        n = SIZE << 20
        body = os.urandom(n) if kind == "noise" else b"0" * n
        push_mail(root, a_bare, "b", "big", body)
        push_mail(root, a_bare, "b", "small", b"hello\n")
        del body
        before = du(os.path.join(b, ".git"))
        wall, own, child, out = measured(CN, "--hub", b, "sync", "--json")
        report = json.loads(out)
        grown = (du(os.path.join(b, ".git")) - before) / (1 << 20)
        again_wall, _, _, again = measured(CN, "--hub", b, "sync", "--json")
        again = json.loads(again)
        row = {
            "mail": f"{SIZE} MB {kind}",
            "wall_s": round(wall, 2),
            "cn_peak_rss_mb": round(own, 1),
            "largest_child_peak_rss_mb": round(child, 1),
            "git_grew_mb": round(grown, 2),
            "received": report["received"],
            "rejected": report["rejected"],
            "second_sync_s": round(again_wall, 2),
            "second_sync_took": again["received"] + again["rejected"],
        }
        results.append(row)
        print(json.dumps(row))


def nested_figures(results):
    root = os.path.join(OUT, "nested")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    a, a_bare, b = pair(root)
    bomb = (
        "---\nid: nest\nto: b\nfrom: a\nthread: nest\ncreated: 2026-01-01T00:00:00Z\nx: "
        + "[" * 200_000
        + "\n---\n\nhi\n"
    ).encode()
    push_mail(root, a_bare, "b", "nest", bomb)
    with open(os.path.join(b, "threads/inbox/o1.md"), "w") as f:
        f.write("---\nid: o1\nfrom: owner\ncadence: inbox\nqueued: 2026-01-06T16:00:00Z\n---\n\nhello\n")
    t = time.perf_counter()
    sync = subprocess.Popen([CN, "--hub", b, "sync", "--json"], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    o = time.perf_counter()
    run(CN, "--hub", b, "input")
    run(CN, "--hub", b, "out", "do", "noop", "--reason", "seen")
    owner = time.perf_counter() - o
    out, _ = sync.communicate()
    row = {
        "mail": "200,000 nested [ in the frontmatter",
        "sync_wall_s": round(time.perf_counter() - t, 2),
        "owner_cn_input_and_out_s": round(owner, 2),
        "rejected": json.loads(out)["rejected"],
    }
    results.append(row)
    print(json.dumps(row))


def status_of(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            fields[k] = v.split()[0] if v.split() else ""
    return int(fields["VmRSS"]) / 1024, int(fields["VmHWM"]) / 1024


def wait_for(path, limit=60):
    end = time.time() + limit
    while time.time() < end:
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError):
            time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {path}")


def endpoint_figures(results):
    root = os.path.join(OUT, "endpoint")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    ada, _ = hub(root, "ada")
    with open(os.path.join(ada, "cn.yaml")) as f:
        yaml = f.read()
    yaml = yaml.replace("\nsenses:\n", "\nsenses:\n  github:\n    secret_env: CN_BENCH_HOOK\n", 1)
    with open(os.path.join(ada, "cn.yaml"), "w") as f:
        f.write(yaml)
    env = dict(ENV, CN_BENCH_HOOK="bench-secret")
    daemon = subprocess.Popen([CN, "--hub", ada, "run"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        info = wait_for(os.path.join(ada, "state/run.json"))
        addr = info["owner_url"].split("//")[1].split("/")[0]
        host, port = addr.rsplit(":", 1)
        time.sleep(1)
        rss0, _ = status_of(daemon.pid)

        def attack(name, head, n):
            socks = []
            for _ in range(n):
                s = socket.create_connection((host, int(port)))
                s.sendall(head)
                socks.append(s)
            answered = 0
            for s in socks:
                s.settimeout(30)
                try:
                    if s.recv(64):
                        answered += 1
                except OSError:
                    pass
            rss, hwm = status_of(daemon.pid)
            for s in socks:
                s.close()
            row = {"attack": name, "rss_before_mb": round(rss0, 1), "rss_after_mb": round(rss, 1), "peak_mb": round(hwm, 1), "answered": answered}
            results.append(row)
            print(json.dumps(row))

        chunk = b"x" * (64 << 10)
        owner = f"POST /owner/message HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {2 << 20}\r\n\r\n".encode()
        attack("300 half-sent 2 MB bodies, no token", owner + chunk, 300)
        hook = f"POST /github/webhook HTTP/1.1\r\nHost: {addr}\r\nX-GitHub-Event: issues\r\nX-Hub-Signature-256: sha256={'0' * 64}\r\nContent-Length: {4 << 20}\r\n\r\n".encode()
        attack("100 half-sent 4 MB GitHub deliveries, well-formed signature header", hook + chunk, 100)
        attack("300 connections stalled mid-header", f"POST /owner/message HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ".encode(), 300)
    finally:
        daemon.terminate()
        daemon.wait()


def main():
    os.makedirs(OUT, exist_ok=True)
    results = []
    try:
        sync_figures(results)
        nested_figures(results)
        endpoint_figures(results)
    finally:
        for d in DAEMONS:
            d.terminate()
            d.wait()
    with open(os.path.join(OUT, "hostile.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
