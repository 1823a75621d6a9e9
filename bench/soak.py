#!/usr/bin/env python3
"""The soak (issue 16): `cn run` for DURATION seconds under a mixed load, SIGKILLed and
restarted every KILL_EVERY seconds, its RSS and open file descriptors sampled every SAMPLE
seconds; at the end, every item must have been decided exactly once and nothing lost.

Load (all against the real binary, real git, real HTTP on loopback):
  - an owner message every OWNER_EVERY s (POST /owner/message),
  - WEBHOOKS_PER_S signed GitHub webhooks a second (issues events over 50 issue numbers,
    so repeated keys coalesce as a real repository's would; every 20th a redelivery),
  - a peer mail each minute (a second hub sends and syncs; the daemon's peer sense syncs),
  - a schedule entry firing each minute (`* * * * *`),
  - a watched file changing every FILE_EVERY s.

The model is a shell script (level 2, `provider: command`): it replies to the owner and
acknowledges everything else, so the soak measures cn, not a model.

Checks at the end (after the load stops and the daemon drains):
  - no item is decided twice (journal `decision` entries with a `place`),
  - every owner message accepted (HTTP 202) is decided exactly once,
  - every peer mail sent is decided exactly once,
  - the inbox holds nothing (nothing stranded),
  - RSS and fds flat: within each daemon life, the last sample against the first sample after
    WARMUP seconds (growth ≤ 5 %).

Usage: bench/soak.py [path/to/cn] [outdir]    (env: DURATION, KILL_EVERY, SAMPLE, WARMUP)
Writes outdir/samples.csv (t, life, pid, rss_kb, fds), outdir/result.json and prints a summary.
"""
import hashlib
import hmac
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

CN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/cn")
OUT = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="cn-soak-out-"))
DURATION = float(os.environ.get("DURATION", 3600))
KILL_EVERY = float(os.environ.get("KILL_EVERY", 600))
SAMPLE = float(os.environ.get("SAMPLE", 10))
WARMUP = float(os.environ.get("WARMUP", 120))
OWNER_EVERY = float(os.environ.get("OWNER_EVERY", 3))
WEBHOOKS_PER_S = float(os.environ.get("WEBHOOKS_PER_S", 10))
FILE_EVERY = float(os.environ.get("FILE_EVERY", 5))
PEER_EVERY = float(os.environ.get("PEER_EVERY", 60))
SECRET = b"soak-secret"

os.makedirs(OUT, exist_ok=True)
WORK = tempfile.mkdtemp(prefix="cn-soak-")
HUB = os.path.join(WORK, "soak")
PEER = os.path.join(WORK, "peer")
LOG = open(os.path.join(OUT, "soak.log"), "a", buffering=1)


def log(*a):
    line = time.strftime("%H:%M:%S ") + " ".join(str(x) for x in a)
    print(line, file=LOG)
    print(line, flush=True)


def run(*args, cwd=None, check=True, env=None):
    r = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env)
    if check and r.returncode != 0:
        raise RuntimeError(f"{args}: {r.returncode} {r.stdout} {r.stderr}")
    return r


def cn(hub, *args, check=True):
    env = dict(os.environ, CN_LOG="error")
    env.pop("CN_HUB", None)
    return run(CN, "--hub", hub, *args, check=check, env=env)


def setup():
    model = os.path.join(WORK, "model.sh")
    with open(model, "w") as f:
        f.write(
            'prompt=$(cat)\ncase "$prompt" in\n'
            "  *\"From: owner\"*) printf '```yaml\\ntool: reply\\nmessage: noted\\n```\\n' ;;\n"
            "  *) printf '```yaml\\ntool: ack\\nreason: seen\\n```\\n' ;;\nesac\n"
        )
    for name in ("soak", "peer"):
        run(CN, "init", os.path.join(WORK, name), "--name", name)
        run("git", "init", "-q", "--bare", os.path.join(WORK, f"{name}.git"))
        run("git", "-C", os.path.join(WORK, name), "remote", "add", "origin", os.path.join(WORK, f"{name}.git"))
    cn(HUB, "peer", "add", "peer", os.path.join(WORK, "peer.git"))
    cn(PEER, "peer", "add", "soak", os.path.join(WORK, "soak.git"))
    os.makedirs(os.path.join(HUB, "watched"), exist_ok=True)
    with open(os.path.join(HUB, "cn.yaml"), "w") as f:
        f.write(
            "name: soak\n"
            f"models:\n  local:\n    provider: command\n    command: [sh, {model}]\n    timeout_secs: 60\n"
            "senses:\n  bind: 127.0.0.1:0\n  github: {secret_env: SOAK_HOOK_SECRET}\n"
            "  files: {paths: [watched]}\n  peers: {every: 15s}\n"
            "policy:\n  levels:\n    0: [reply, noop, ack]\n    2: [reply, noop, ack, defer]\n"
        )
    cn(HUB, "schedule", "add", "tick", "* * * * *", "Soak tick: note the minute")
    run("git", "-C", HUB, "add", "-A")
    run("git", "-C", HUB, "-c", "user.name=soak", "-c", "user.email=soak@x", "commit", "-qm", "soak config")


class Daemon:
    def __init__(self):
        self.proc = None
        self.url = None
        self.life = 0
        self.lock = threading.Lock()

    def start(self):
        try:
            os.remove(os.path.join(HUB, "state/run.json"))
        except FileNotFoundError:
            pass
        env = dict(os.environ, CN_LOG="warn", SOAK_HOOK_SECRET=SECRET.decode())
        env.pop("CN_HUB", None)
        err = open(os.path.join(OUT, "daemon.stderr"), "a")
        proc = subprocess.Popen([CN, "--hub", HUB, "run"], stdout=subprocess.DEVNULL, stderr=err, env=env)
        deadline = time.time() + 120
        url = None
        while time.time() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the daemon exited early: {proc.returncode}")
            try:
                with open(os.path.join(HUB, "state/run.json")) as f:
                    url = json.load(f).get("owner_url")
                if url:
                    break
            except (FileNotFoundError, ValueError):
                pass
            time.sleep(0.05)
        if not url:
            raise RuntimeError("the daemon wrote no state/run.json")
        with self.lock:
            self.proc, self.url = proc, url
            self.life += 1
        log("daemon started", proc.pid, url, "life", self.life)

    def base(self):
        with self.lock:
            return self.url.rsplit("/owner/", 1)[0] if self.url else None

    def kill(self):
        with self.lock:
            proc, self.url = self.proc, None
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        log("daemon SIGKILLed", proc.pid)

    def term(self):
        with self.lock:
            proc, self.url = self.proc, None
        proc.send_signal(signal.SIGTERM)
        try:
            return proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            return "killed after 120 s"


def post(url, body, headers):
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, None
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return None, None


STOP = threading.Event()
STATS = {"owner_sent": 0, "owner_refused": 0, "webhooks_sent": 0, "webhooks_202": 0, "webhooks_dup": 0,
         "webhooks_refused": 0, "peer_mail": 0, "file_changes": 0}
OWNER_IDS = []
PEER_IDS = []


def owner_load(d):
    n = 0
    while not STOP.wait(OWNER_EVERY):
        base = d.base()
        if not base:
            continue
        n += 1
        # The owner endpoint takes the owner's token only (issue 15).
        with open(os.path.join(HUB, ".git", "cn-owner-token")) as f:
            token = f.read().strip()
        status, body = post(base + "/owner/message", json.dumps({"text": f"Owner message {n}"}).encode(),
                            {"content-type": "application/json", "authorization": f"Bearer {token}"})
        if status == 202:
            OWNER_IDS.append(body["accepted"])
            STATS["owner_sent"] += 1
        else:
            STATS["owner_refused"] += 1


def webhook_load(d):
    n = 0
    period = 1.0 / WEBHOOKS_PER_S
    next_t = time.time()
    while not STOP.is_set():
        next_t += period
        time.sleep(max(0.0, next_t - time.time()))
        base = d.base()
        if not base:
            continue
        n += 1
        issue = n % 50
        payload = {"action": "edited", "issue": {"number": issue, "title": f"Issue {issue}"},
                   "repository": {"full_name": "soak/repo"}, "sender": {"login": "bot"}}
        body = json.dumps(payload).encode()
        delivery = f"d-{n - 1}" if n % 20 == 0 else f"d-{n}"  # every 20th a redelivery
        sig = "sha256=" + hmac.new(SECRET, body, hashlib.sha256).hexdigest()
        status, answer = post(base + "/github/webhook", body, {
            "content-type": "application/json", "X-GitHub-Event": "issues",
            "X-GitHub-Delivery": delivery, "X-Hub-Signature-256": sig})
        STATS["webhooks_sent"] += 1
        if status == 202:
            STATS["webhooks_202"] += 1
        elif status == 200 and answer and "duplicate" in answer:
            STATS["webhooks_dup"] += 1
        else:
            STATS["webhooks_refused"] += 1


def peer_load():
    n = 0
    while not STOP.wait(PEER_EVERY):
        n += 1
        r = cn(PEER, "send", "--to", "soak", "--message", f"Peer mail {n}", check=False)
        if r.returncode != 0:
            log("peer send failed", r.stderr.strip())
            continue
        sent_before = set(os.listdir(os.path.join(PEER, "threads/mail/sent"))) if os.path.isdir(
            os.path.join(PEER, "threads/mail/sent")) else set()
        cn(PEER, "sync", check=False)
        sent_after = set(os.listdir(os.path.join(PEER, "threads/mail/sent")))
        for f in sorted(sent_after - sent_before):
            PEER_IDS.append(f[:-3])
        STATS["peer_mail"] = len(PEER_IDS)


def file_load():
    n = 0
    while not STOP.wait(FILE_EVERY):
        n += 1
        path = os.path.join(HUB, "watched", f"f{n % 5}.txt")
        with open(path, "w") as f:
            f.write(f"change {n}\n")
        STATS["file_changes"] = n


def sampler(d, out):
    t0 = time.time()
    while not STOP.wait(SAMPLE):
        with d.lock:
            proc, life = d.proc, d.life
        if proc is None or proc.poll() is not None:
            continue
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS"))
            fds = len(os.listdir(f"/proc/{proc.pid}/fd"))
        except (FileNotFoundError, StopIteration, ProcessLookupError):
            continue
        out.write(f"{time.time() - t0:.0f},{life},{proc.pid},{rss},{fds}\n")
        out.flush()


def journal():
    entries = []
    state = os.path.join(HUB, "state")
    # The rotated segments (state/journal/NNNNNN.jsonl) oldest first, then the live file.
    seg_dir = os.path.join(state, "journal")
    segments = sorted(n for n in os.listdir(seg_dir) if n.endswith(".jsonl")) if os.path.isdir(seg_dir) else []
    paths = [os.path.join(seg_dir, n) for n in segments] + [os.path.join(state, "journal.jsonl")]
    for path in paths:
        if not os.path.exists(path):
            continue
        with open(path, errors="replace") as f:
            for line in f:
                try:
                    entries.append(json.loads(line))
                except ValueError:
                    pass
    return entries


def decisions():
    counts = {}
    for e in journal():
        if e.get("type") == "decision" and isinstance(e.get("place"), str):
            counts[e["id"]] = counts.get(e["id"], 0) + 1
    return counts


def inbox():
    d = os.path.join(HUB, "threads/inbox")
    return sorted(n for n in os.listdir(d) if n.endswith(".md")) if os.path.isdir(d) else []


def main():
    setup()
    log("soak", CN, "work", WORK, "out", OUT, "duration", DURATION, "kill every", KILL_EVERY)
    d = Daemon()
    d.start()
    samples = open(os.path.join(OUT, "samples.csv"), "w")
    samples.write("t,life,pid,rss_kb,fds\n")
    threads = [threading.Thread(target=f, args=a, daemon=True) for f, a in
               [(owner_load, (d,)), (webhook_load, (d,)), (peer_load, ()), (file_load, ()), (sampler, (d, samples))]]
    for t in threads:
        t.start()
    start = time.time()
    next_kill = start + KILL_EVERY
    kills = 0
    while time.time() - start < DURATION:
        time.sleep(1)
        if d.proc.poll() is not None:
            log("the daemon died by itself:", d.proc.returncode)
            d.start()
        if time.time() >= next_kill and time.time() - start < DURATION - 60:
            # A random moment within the next few seconds, so the kill lands mid-work.
            time.sleep(random.random() * 3)
            d.kill()
            kills += 1
            d.start()
            next_kill += KILL_EVERY
    STOP.set()
    for t in threads:
        t.join(timeout=120)
    log("load stopped; draining", STATS)
    # A last peer sync, then wait for every sent owner message and mail to be decided.
    deadline = time.time() + 600
    want = set(OWNER_IDS) | set(PEER_IDS)
    while time.time() < deadline:
        got = decisions()
        if want <= set(got) and not inbox():
            break
        time.sleep(2)
    status = d.term()
    got = decisions()
    twice = {k: v for k, v in got.items() if v > 1}
    owner_missing = [i for i in OWNER_IDS if i not in got]
    peer_missing = [i for i in PEER_IDS if i not in got]
    left = inbox()

    rows = [l.strip().split(",") for l in open(os.path.join(OUT, "samples.csv")).readlines()[1:]]
    by_life = {}
    for t, life, pid, rss, fds in rows:
        by_life.setdefault(int(life), []).append((float(t), int(rss), int(fds)))
    growth = []
    for life, s in sorted(by_life.items()):
        t_first = s[0][0]
        warm = [x for x in s if x[0] - t_first >= WARMUP]
        if len(warm) >= 2:
            first, last = warm[0], warm[-1]
            growth.append({"life": life, "minutes": round((last[0] - first[0]) / 60, 1),
                           "rss_first_kb": first[1], "rss_last_kb": last[1], "rss_max_kb": max(x[1] for x in warm),
                           "rss_growth_pct": round(100 * (last[1] - first[1]) / first[1], 1),
                           "fds_first": first[2], "fds_last": last[2], "fds_max": max(x[2] for x in warm)})
    result = {
        "cn": CN, "duration_s": DURATION, "kills": kills, "exit_after_sigterm": str(status), "stats": STATS,
        "decided_items": len(got),
        "schedule_impulses": sum(1 for e in journal() if e.get("type") == "impulse" and "tick" in json.dumps(e)), "decided_twice": twice, "owner_accepted": len(OWNER_IDS),
        "owner_undecided": owner_missing, "peer_mail": len(PEER_IDS), "peer_undecided": peer_missing,
        "inbox_left": left, "lives": growth,
        "ok": not twice and not owner_missing and not peer_missing and not left
        and all(g["rss_growth_pct"] <= 5 for g in growth),
    }
    with open(os.path.join(OUT, "result.json"), "w") as f:
        json.dump(result, f, indent=1)
    log("result", json.dumps(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
