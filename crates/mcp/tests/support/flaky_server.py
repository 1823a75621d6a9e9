"""A deliberately bad MCP server on stdio (raw JSON-RPC, no SDK): its tool `echo` answers,
`hang` never answers, `die` exits the process. Each start appends a line to $STARTS_FILE."""

import json
import os
import sys
import time

if os.environ.get("STARTS_FILE"):
    with open(os.environ["STARTS_FILE"], "a") as f:
        f.write(f"{os.getpid()}\n")
if os.environ.get("LEAK_CHECK"):
    # The environment must be scrubbed: cn passes no secret it was not told to.
    with open(os.environ["LEAK_CHECK"], "w") as f:
        json.dump(sorted(os.environ.keys()), f)


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


TOOL = {"type": "object", "properties": {"text": {"type": "string"}}}
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    method, mid = msg.get("method"), msg.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": msg["params"].get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "flaky", "version": "0"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [
            {"name": n, "description": d, "inputSchema": TOOL}
            for n, d in [("echo", "Echo text."), ("hang", "Never answers."), ("die", "Exits.")]]}})
    elif method == "tools/call":
        name = msg["params"]["name"]
        if name == "hang":
            time.sleep(3600)
        elif name == "die":
            sys.exit(1)
        text = msg["params"].get("arguments", {}).get("text", "")
        send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": "echo: " + text}]}})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
