#!/usr/bin/env python3
"""A disk that fills up (issue 16): the hub on a small tmpfs (needs root for the mount),
`cn run` with a shell-script model, the disk filled to the last byte, owner messages sent
while it is full, then the space returned. Checks: the daemon stays up, says what failed
(its stderr), loses nothing (every message accepted with 202 is decided once the space is
back) and recovers by itself (no restart).

Usage: sudo bench/diskfull.py [path/to/cn] [size, default 40m]
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

CN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/cn")
SIZE = sys.argv[2] if len(sys.argv) > 2 else "40m"
WORK = tempfile.mkdtemp(prefix="cn-diskfull-")
MNT = os.path.join(WORK, "mnt")
HUB = os.path.join(MNT, "hub")


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def post(url, text):
    # The owner endpoint takes the owner's token only (issue 15).
    with open(os.path.join(HUB, ".git", "cn-owner-token")) as f:
        token = f.read().strip()
    req = urllib.request.Request(url, data=json.dumps({"text": text}).encode(),
                                 headers={"content-type": "application/json", "authorization": f"Bearer {token}"},
                                 method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")
    except OSError as e:
        return None, str(e)


def decided():
    out = {}
    try:
        with open(os.path.join(HUB, "state/journal.jsonl"), errors="replace") as f:
            for line in f:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                if e.get("type") == "decision" and isinstance(e.get("place"), str):
                    out[e["id"]] = out.get(e["id"], 0) + 1
    except FileNotFoundError:
        pass
    return out


def main():
    os.makedirs(MNT)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", MNT], check=True)
    proc = None
    try:
        model = os.path.join(WORK, "model.sh")
        with open(model, "w") as f:
            f.write("cat > /dev/null\nprintf '```yaml\\ntool: reply\\nmessage: noted\\n```\\n'\n")
        subprocess.run([CN, "init", HUB, "--name", "full"], check=True, capture_output=True)
        with open(os.path.join(HUB, "cn.yaml"), "w") as f:
            f.write(f"name: full\nmodels:\n  local:\n    provider: command\n    command: [sh, {model}]\n"
                    "senses:\n  bind: 127.0.0.1:0\npolicy:\n  levels:\n    2: [reply, noop, ack]\n"
                    "pacing:\n  active: 1s\n  idle: 2s\n")
        err_path = os.path.join(WORK, "daemon.stderr")
        env = dict(os.environ, CN_LOG="warn")
        env.pop("CN_HUB", None)
        proc = subprocess.Popen([CN, "--hub", HUB, "run"], stderr=open(err_path, "w"), stdout=subprocess.DEVNULL,
                                env=env)
        url = None
        for _ in range(600):
            try:
                url = json.load(open(os.path.join(HUB, "state/run.json")))["owner_url"]
                break
            except (OSError, ValueError, KeyError):
                time.sleep(0.1)
        status, body = post(url, "before the disk fills")
        log("before:", status, body)
        accepted = [body["accepted"]] if status == 202 else []
        # Fill the disk to the last byte.
        filler = os.path.join(MNT, "filler")
        subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k"], capture_output=True)
        subprocess.run(["sh", "-c", f"cat /dev/zero >> {filler}.2"], capture_output=True)
        log("disk full:", subprocess.run(["df", "-h", MNT], capture_output=True, text=True).stdout.splitlines()[-1])
        full_results = []
        for i in range(8):
            status, body = post(url, f"while full {i}")
            full_results.append(status)
            if status == 202:
                accepted.append(body["accepted"])
            time.sleep(1)
        time.sleep(10)
        alive_full = proc.poll() is None
        log("while full: statuses", full_results, "daemon alive:", alive_full)
        os.remove(filler)
        os.remove(filler + ".2")
        log("space returned")
        t0 = time.time()
        while time.time() - t0 < 180:
            d = decided()
            if all(a in d for a in accepted):
                break
            time.sleep(1)
        recovered_s = time.time() - t0
        status, body = post(url, "after")
        if status == 202:
            accepted.append(body["accepted"])
        t1 = time.time()
        while time.time() - t1 < 60 and body and not all(a in decided() for a in accepted):
            time.sleep(0.5)
        d = decided()
        missing = [a for a in accepted if a not in d]
        twice = {k: v for k, v in d.items() if v > 1}
        alive = proc.poll() is None
        errors = [l.strip() for l in open(err_path, errors="replace") if "No space" in l or "ERROR" in l or "WARN" in l]
        result = {"accepted": len(accepted), "statuses_while_full": full_results, "alive_while_full": alive_full,
                  "alive_after": alive, "undecided": missing, "decided_twice": twice,
                  "recovered_within_s": round(recovered_s, 1), "error_lines": len(errors),
                  "first_errors": errors[:5], "ok": alive and alive_full and not missing and not twice}
        print(json.dumps(result, indent=1))
        return 0 if result["ok"] else 1
    finally:
        if proc and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        subprocess.run(["umount", "-l", MNT])


if __name__ == "__main__":
    sys.exit(main())
