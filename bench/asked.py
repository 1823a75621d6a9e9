#!/usr/bin/env python3
"""Does the agent do what it is asked? (issue 30) — the owner-message corpus through the real
`cn` binary and a real daemon, answered by the real levels: the starter reflexes, the embedded
SmolLM2 where a reflex asks it, and an executive.

Two hubs per run:
  * `executive`: an OpenAI-compatible executive on loopback (this script's stand-in server: it
    counts the calls and answers each with a reply, so what reaches it is exactly what it
    counts — the figure is about routing, not about the executive's wit);
  * `none`: no executive configured.

For each message of a corpus (bench/asked/corpus-*.tsv: `class<TAB>message`) the owner says it
with `cn chat` to the running daemon; the script then reads the hub: the decision the journal
recorded for that item (its level, whether it was handed up and why, the reply's text) and the
calls the executive received. Outcomes:

  done below     answered below the executive with a reply that is no token answer
  escalated      the executive was asked (hub `executive`)
  handed up      deferred with a true reason (hub `none`: no executive configured)
  dropped        anything else: a token answer, a close, a reply below the executive to a
                 request, a hand-up where the executive was there to ask

Goals (issue 30): requests dropped 0; small talk answered below the executive >= 95 %;
requests escalated or honestly handed up 100 %.

Usage: bench/asked.py CN_BINARY [corpus.tsv ...]   (default: both corpora, tune then held-out)
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
TOKENS = {"👍", "ok", "okay", "noted", "got it", "sure", "done", "will do"}


class Executive(BaseHTTPRequestHandler):
    calls = []
    lock = threading.Lock()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0))).decode()
        with Executive.lock:
            Executive.calls.append(body)
        events = [
            {"model": "stand-in", "choices": [{"index": 0, "delta": {"content": "```yaml\ntool: reply\nmessage: (the executive's answer)\n```"}}]},
            {"model": "stand-in", "choices": [], "usage": {"prompt_tokens": 900, "completion_tokens": 20}},
        ]
        out = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(out.encode())

    def log_message(self, *args):
        pass


def corpus(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        cls, msg = line.rstrip("\n").split("\t", 1)
        rows.append((cls, msg))
    return rows


def journal(cn, hub):
    out = subprocess.run([cn, "--hub", hub, "journal", "--json"], capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def hub_with(cn, root, name, executive_url):
    # Each hub is called `ada` (the hello reflex answers to its name), in its own folder.
    hub = os.path.join(root, name, "ada")
    os.makedirs(os.path.dirname(hub), exist_ok=True)
    name = "ada"
    subprocess.run([cn, "init", hub, "--name", name], check=True, capture_output=True)
    extra = "senses:\n  bind: 127.0.0.1:0\n"
    if executive_url:
        extra += (
            "models:\n  local:\n    provider: embedded\n  executive:\n    provider: openai\n"
            f"    base_url: {executive_url}\n    model: stand-in\n    api_key_env: CN_BENCH_KEY\n"
            "budget:\n  daily_tokens: 10000000\n  min_interval_secs: 0\n"
        )
    cfg = os.path.join(hub, "cn.yaml")
    text = open(cfg).read()
    # Replace the generated sections that the extra redefines.
    # cn init's `senses:` block runs to its blank line.
    start = text.index("\nsenses:") + 1
    end = text.index("\n\n", start) + 1
    text = text[:start] + text[end:]
    if executive_url:
        start = text.index("models:")
        end = text.index("# The thinking budget")
        text = text[:start] + text[end:]
        start = text.index("budget:")
        end = text.index("# Senses:")
        text = text[:start] + text[end:]
    open(cfg, "w").write(text + extra)
    return hub


def run(cn, corpora):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Executive)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    env = dict(os.environ, CN_BENCH_KEY="sk-bench", CN_LOG="error")
    root = tempfile.mkdtemp(prefix="cn-asked-")
    results = {}
    try:
        for setup, exec_url in (("executive", url), ("none", None)):
            hub = hub_with(cn, root, setup, exec_url)
            daemon = subprocess.Popen([cn, "--hub", hub, "run"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            deadline = time.time() + 60
            while not os.path.exists(os.path.join(hub, "state", "run.json")):
                if time.time() > deadline or daemon.poll() is not None:
                    raise SystemExit(f"the daemon did not start: {daemon.stderr.read()}")
                time.sleep(0.05)
            try:
                for path in corpora:
                    split = os.path.basename(path).replace("corpus-", "").replace(".tsv", "")
                    for cls, msg in corpus(path):
                        before_calls = len(Executive.calls)
                        seen = len([e for e in journal(cn, hub) if e.get("type") == "decision" and e.get("from") == "owner"])
                        t0 = time.time()
                        chat = subprocess.run([cn, "--hub", hub, "chat", "--timeout", "180", msg], env=env, capture_output=True, text=True)
                        ms = (time.time() - t0) * 1000
                        decisions = [e for e in journal(cn, hub) if e.get("type") == "decision" and e.get("from") == "owner"]
                        new = decisions[seen] if len(decisions) > seen else None
                        # Only calls about this message count: with an executive the idle daemon
                        # also explores (ideas, follow-ups) on its own.
                        needle = json.dumps(msg)[1:-1]
                        with Executive.lock:
                            called = any(needle in body for body in Executive.calls[before_calls:])
                        answer = chat.stdout.strip()
                        outcome = classify(setup, cls, new, called, answer)
                        results.setdefault((setup, split, cls), []).append((msg, outcome, ms, answer))
            finally:
                daemon.terminate()
                daemon.wait(timeout=30)
    finally:
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    return results


def classify(setup, cls, decision, called, answer):
    if decision is None:
        return "dropped"  # nothing recorded
    level = decision.get("level")
    handed_up = decision.get("handed_up")
    reply = decision.get("op") == "reply" and decision.get("gtd") == "do"
    token = answer.strip().lower().strip(".!") in TOKENS or not any(c.isalnum() for c in answer)
    if called or level == 3:
        return "escalated"
    if handed_up:
        # Honest only when nothing could be asked: no executive configured.
        return "handed up" if (setup == "none" and "no executive" in handed_up) else "dropped"
    if reply and not token and level is not None and level < 3:
        return "done below" if cls != "request" else "dropped"
    return "dropped"


def report(results):
    print(f"{'hub':<10} {'corpus':<8} {'class':<10} {'n':>3}  {'done below':>10} {'escalated':>9} {'handed up':>9} {'dropped':>7}  median ms")
    for (setup, split, cls), rows in sorted(results.items()):
        n = len(rows)
        count = lambda o: sum(1 for _, out, _, _ in rows if out == o)
        ms = sorted(r[2] for r in rows)[n // 2]
        print(f"{setup:<10} {split:<8} {cls:<10} {n:>3}  {count('done below'):>10} {count('escalated'):>9} {count('handed up'):>9} {count('dropped'):>7}  {ms:>8.0f}")
    print()
    for (setup, split, cls), rows in sorted(results.items()):
        for msg, out, _, answer in rows:
            bad = (cls == "request" and out in ("dropped", "done below")) or (cls == "smalltalk" and out != "done below") or out == "dropped"
            if bad:
                print(f"  [{setup}/{split}/{cls}] {msg!r} -> {out}: {answer[:100]!r}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    cn = os.path.abspath(sys.argv[1])
    corpora = sys.argv[2:] or [os.path.join(HERE, "asked", "corpus-tune.tsv"), os.path.join(HERE, "asked", "corpus-heldout.tsv")]
    report(run(cn, corpora))
