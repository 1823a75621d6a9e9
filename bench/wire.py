#!/usr/bin/env python3
"""A wire with latency between two network namespaces: what `tc qdisc add … netem delay`
would do, for a kernel built without sch_netem (and without fq or etf, the qdiscs a BPF
program could delay packets with). Needs root (network namespaces, /dev/net/tun).

    ip netns add A; ip netns add B
    python3 bench/wire.py A B 50 &   # 10.77.0.1 in A, 10.77.0.2 in B, 50 ms round trip

Each namespace gets a TUN device `wire` (10.77.0.1/30 in A, 10.77.0.2/30 in B); this process
holds both and carries every IP packet from one to the other after half the round trip. It
is a delay line, not a proxy: every packet (SYN, ACK, data) waits the same time from the
moment it was sent, packets in flight overlap as they do on a real link, and TCP runs end to
end (handshake, slow start, retransmission) between the two kernels. MTU 1500.

Standard input sets the round trip while it runs: a line with a number of milliseconds. It
prints "ready" once both ends are up, and exits when standard input closes.
"""

import collections
import ctypes
import fcntl
import os
import select
import struct
import subprocess
import sys
import time

CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
LIBC = ctypes.CDLL(None, use_errno=True)
NAME = "wire"
ADDRS = ("10.77.0.1/30", "10.77.0.2/30")


def setns(fd):
    if LIBC.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"setns: {os.strerror(err)}")


def tun_in(ns):
    """A TUN device named `wire` made in namespace `ns` (gone when this process exits)."""
    fd = os.open(f"/var/run/netns/{ns}", os.O_RDONLY)
    try:
        setns(fd)
    finally:
        os.close(fd)
    tun = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(tun, TUNSETIFF, struct.pack("16sH", NAME.encode(), IFF_TUN | IFF_NO_PI))
    return tun


def ip(ns, *args):
    subprocess.run(["ip", "-n", ns, *args], check=True)


def main():
    a_ns, b_ns, rtt = sys.argv[1], sys.argv[2], float(sys.argv[3])
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    a, b = tun_in(a_ns), tun_in(b_ns)
    setns(home)
    for ns, addr in zip((a_ns, b_ns), ADDRS):
        ip(ns, "link", "set", "lo", "up")
        ip(ns, "addr", "add", addr, "dev", NAME)
        ip(ns, "link", "set", NAME, "up")
    one_way = rtt / 2000
    # Packets on their way into each device: (when due, bytes), in the order sent.
    to = {a: collections.deque(), b: collections.deque()}
    other = {a: b, b: a}
    stdin = sys.stdin.fileno()
    print("ready", flush=True)
    while True:
        heads = [q[0][0] for q in to.values() if q]
        timeout = max(0.0, min(heads) - time.monotonic()) if heads else None
        ready, _, _ = select.select([a, b, stdin], [], [], timeout)
        now = time.monotonic()
        for fd in ready:
            if fd == stdin:
                line = sys.stdin.readline()
                if not line:
                    return
                one_way = float(line) / 2000
                continue
            while True:
                try:
                    packet = os.read(fd, 65536)
                except BlockingIOError:
                    break
                to[other[fd]].append((now + one_way, packet))
        now = time.monotonic()
        for fd, q in to.items():
            while q and q[0][0] <= now:
                try:
                    os.write(fd, q.popleft()[1])
                except BlockingIOError:
                    pass  # the device's queue is full: the packet is lost, as on a wire


if __name__ == "__main__":
    main()
