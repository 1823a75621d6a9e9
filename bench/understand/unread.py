"""Write the lines of test files that no earlier `judge.py --limit L --shift S` sample drew:
a clean sample for when every shift of one limit has been read.

    python3 bench/understand/unread.py OUT_DIR --read 400:0,0.125,0.25,0.375,0.5,0.625,0.75,0.875 FILE.jsonl...

Each FILE's unread lines go to OUT_DIR/<its folder>/<its name>, in order (blank lines and lines
that are not JSON are dropped as judge.py drops them, so the picks match its own). Typed and
spoken files of one source have the same lines in the same order, so they lose the same lines.
"""
import argparse
import json
import os


def picks(n, limit, shift):
    # As judge.py's `load`: the k-th pick of `limit` spread over `n` lines.
    return {int((k + shift) * n / limit) for k in range(limit)} if n > limit else set(range(n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--read", action="append", required=True, help="LIMIT:SHIFT[,SHIFT...] of samples already read")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    for path in a.files:
        lines = []
        with open(path, encoding="utf-8") as f:
            for raw in f:
                if not raw.strip():
                    continue
                try:
                    json.loads(raw)
                except json.JSONDecodeError:
                    continue
                lines.append(raw if raw.endswith("\n") else raw + "\n")
        read = set()
        for spec in a.read:
            limit, shifts = spec.split(":")
            for s in shifts.split(","):
                read |= picks(len(lines), int(limit), float(s))
        kept = [l for i, l in enumerate(lines) if i not in read]
        folder = os.path.join(a.out, os.path.basename(os.path.dirname(os.path.abspath(path))))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, os.path.basename(path)), "w", encoding="utf-8") as f:
            f.writelines(kept)
        print(f"{path}: {len(lines)} lines, {len(read)} read before, {len(kept)} unread")


if __name__ == "__main__":
    main()
