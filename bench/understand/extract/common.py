"""Shared helpers for the raw-data extractors.

Every extractor reads from a bare git mirror under /work/.mirror (brought there by
the search tool's `fetch`) and writes UTF-8 TSV files under /work/nlu-data/raw/<source>/.
TSV columns: text, intent[, slots][, extra columns...]. `slots` is a JSON list of
{"slot", "start", "end", "text"} with character offsets into `text` (end exclusive).
"""
import json
import os
import subprocess

MIRROR = "/work/.mirror"
RAW = "/work/nlu-data/raw"


def git_dir(repo):
    return os.path.join(MIRROR, repo.replace("/", "+"), "repo")


def head_commit(repo):
    return subprocess.check_output(
        ["git", "--git-dir", git_dir(repo), "rev-parse", "HEAD"], text=True).strip()


def git_show(repo, path, commit="HEAD"):
    """Bytes of `path` at `commit` in the mirror of `repo`."""
    return subprocess.check_output(
        ["git", "--git-dir", git_dir(repo), "show", f"{commit}:{path}"])


def git_ls(repo, commit="HEAD"):
    out = subprocess.check_output(
        ["git", "--git-dir", git_dir(repo), "ls-tree", "-r", "-l", commit], text=True)
    rows = []
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        _mode, _type, sha, size = meta.split()
        rows.append((path, sha, size))
    return rows


def blob_present(repo, sha):
    r = subprocess.run(["git", "--git-dir", git_dir(repo), "cat-file", "-e", sha],
                       capture_output=True)
    return r.returncode == 0


def clean(s):
    """TSV-safe: no tabs/newlines inside a field."""
    return s.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def check_slots(text, slots):
    for s in slots:
        assert 0 <= s["start"] <= s["end"] <= len(text), (text, s)
        assert text[s["start"]:s["end"]] == s["text"], (text, s)


def write_jsonl(path, rows):
    """rows as JSON lines at `path`, written whole or not at all (a temp file, renamed)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def write_tsv(source, split, header, rows):
    """rows: list of lists matching header; `slots` column given as python list."""
    d = os.path.join(RAW, source)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"{split}.tsv")
    n = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("\t".join(header) + "\n")
        for r in rows:
            out = []
            for h, v in zip(header, r):
                if h == "slots":
                    v = json.dumps(v, ensure_ascii=False)
                out.append(clean(str(v)))
            f.write("\t".join(out) + "\n")
            n += 1
    print(f"{source}/{split}.tsv: {n} rows")
    return n
