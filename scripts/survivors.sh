#!/usr/bin/env bash
# Fail when a process of a test run outlives it. The run is started with CN_TEST_RUN=MARKER in
# its environment, which every process it starts inherits (a server a test left running, a
# daemon it never stopped); after the run, any process still carrying the marker is a
# survivor: each is named, killed, and the check fails. A process gets a few seconds to finish
# exiting first.
# Usage: scripts/survivors.sh MARKER
set -euo pipefail
marker="$1"
survivors() {
    local p
    for p in /proc/[0-9]*; do
        p="${p#/proc/}"
        [ "$p" = "$$" ] && continue
        if { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qxF "CN_TEST_RUN=$marker"; then
            echo "$p"
        fi
    done
}
deadline=$((SECONDS + 10))
left=$(survivors)
while [ -n "$left" ] && [ "$SECONDS" -lt "$deadline" ]; do
    sleep 0.5
    left=$(survivors)
done
[ -z "$left" ] && exit 0
echo "test.sh: processes of the test run outlived it (killed now):" >&2
for p in $left; do
    echo "  $p: $({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null)" >&2
    kill -KILL "$p" 2>/dev/null || true
done
exit 1
