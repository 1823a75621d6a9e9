#!/usr/bin/env python3
"""The control room's figures (issue 20): page weight and first render on loopback.

Starts the real `cn serve` on a fresh hub (with 2,000 journal entries, so the timeline has
work to do), starts chromedriver with headless Chromium, and loads the page RUNS times in
fresh tabs, reading the browser's own Navigation Timing and Paint Timing: first contentful
paint, DOMContentLoaded, load, and "rendered" — when the page's script has filled the Now
view (the `data-shown` mark it sets). Prints medians and the page weight (the bytes of the
page and its assets as served).

Usage: cargo build -p cn && bench/serve.py        (CN=path/to/cn overrides the binary;
RUNS=50 by default; needs Debian's chromium and chromium-driver, see scripts/deps.sh)
"""
import json, os, shutil, socket, statistics, subprocess, sys, tempfile, time, urllib.request

CN = os.path.realpath(os.environ.get("CN", os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "debug", "cn")))
RUNS = int(os.environ.get("RUNS", "50"))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wd(base, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read() or b"{}").get("value")


def main():
    work = tempfile.mkdtemp(prefix="cn-bench-serve-")
    hub = os.path.join(work, "hub")
    subprocess.run([CN, "init", hub, "--name", "ada"], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(hub, "state", "journal.jsonl"), "a") as j:
        for i in range(2000):
            j.write(json.dumps({"ts": "2026-01-06T15:00:%02dZ" % (i % 60), "type": "decision", "id": "item-%d" % i,
                                "summary": "do reply: answered item %d" % i, "level": i % 4}) + "\n")
    serve = subprocess.Popen([CN, "--hub", hub, "serve"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = serve.stdout.readline().strip()
    port = free_port()
    driver = subprocess.Popen(["chromedriver", "--port=%d" % port], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = "http://127.0.0.1:%d" % port
    try:
        for _ in range(300):
            try:
                if wd(base, "GET", "/status")["ready"]:
                    break
            except OSError:
                time.sleep(0.05)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": shutil.which("chromium") or "/usr/bin/chromium",
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"]}}}}
        sid = wd(base, "POST", "/session", caps)["sessionId"]
        s = "/session/" + sid
        wd(base, "POST", s + "/url", {"url": url})  # sets the cookie
        home = url.split("?")[0]
        weight = 0
        for asset in ["", "app.js", "app.css"]:
            weight += wd(base, "POST", s + "/execute/async", {"script":
                "const done = arguments[0]; fetch('/%s').then(r => r.arrayBuffer()).then(b => done(b.byteLength));" % asset, "args": []})
        rows = []
        for _ in range(RUNS):
            wd(base, "POST", s + "/url", {"url": "about:blank"})
            wd(base, "POST", s + "/url", {"url": home})
            for _ in range(400):
                if wd(base, "POST", s + "/execute/sync", {"script": "return document.body && document.body.dataset.shown || ''", "args": []}):
                    break
                time.sleep(0.005)
            rows.append(wd(base, "POST", s + "/execute/sync", {"script": """
                const n = performance.getEntriesByType('navigation')[0];
                const fcp = performance.getEntriesByName('first-contentful-paint')[0];
                const shown = performance.getEntriesByName('cn-shown')[0];
                return {fcp: fcp ? fcp.startTime : null, dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd,
                        shown: shown ? shown.startTime : null};""", "args": []}))
        wd(base, "DELETE", s)
    finally:
        driver.terminate()
        serve.terminate()
    med = lambda k: statistics.median([r[k] for r in rows if r[k] is not None])
    print("page weight: %d bytes (%.1f KB) — index.html + app.js + app.css, uncompressed" % (weight, weight / 1024))
    print("first render on loopback, median of %d loads (ms): FCP %.1f · DOMContentLoaded %.1f · load %.1f · Now view filled %.1f"
          % (len(rows), med("fcp"), med("dcl"), med("load"), med("shown")))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
