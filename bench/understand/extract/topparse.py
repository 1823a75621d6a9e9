"""Parse TOP/TOPv2/MTOP bracketed representations and align to the raw utterance."""


class Node:
    __slots__ = ("label", "children", "tok_start", "tok_end")

    def __init__(self, label):
        self.label = label
        self.children = []
        self.tok_start = None
        self.tok_end = None


def parse(s):
    """Returns (root Node, list of terminal tokens). Node.tok_start/end index tokens."""
    toks = s.split()
    stack, words, root = [], [], None
    for t in toks:
        if t.startswith("[") and len(t) > 1:
            n = Node(t[1:])
            n.tok_start = len(words)
            if stack:
                stack[-1].children.append(n)
            else:
                assert root is None, s
                root = n
            stack.append(n)
        elif t == "]":
            n = stack.pop()
            n.tok_end = len(words)
        else:
            words.append(t)
    assert not stack and root is not None, s
    return root, words


def align(utt, words):
    """Char spans of each word in utt, or None if alignment fails."""
    spans, cur = [], 0
    for w in words:
        while cur < len(utt) and utt[cur].isspace():
            cur += 1
        if utt.startswith(w, cur):
            spans.append((cur, cur + len(w)))
            cur += len(w)
            continue
        j = utt.find(w, cur)
        if j == -1 or j - cur > 3:
            lw, lu = w.lower(), utt.lower()
            j = lu.find(lw, cur)
            if j == -1 or j - cur > 3:
                return None
        spans.append((j, j + len(w)))
        cur = j + len(w)
    return spans


def slots_of(root, utt, spans, depth_limit=1):
    """Top-level (depth 1) slots of the root intent with char offsets."""
    out = []
    def walk(node, depth):
        for c in node.children:
            if c.label.startswith("SL:"):
                if depth <= depth_limit and c.tok_end > c.tok_start:
                    st = spans[c.tok_start][0]
                    en = spans[c.tok_end - 1][1]
                    out.append({"slot": c.label[3:], "start": st, "end": en, "text": utt[st:en]})
                if depth < depth_limit:
                    walk(c, depth + 1)
            elif depth < depth_limit:
                walk(c, depth + 1)
    walk(root, 1)
    return out


def is_nested(root):
    def has_in(n):
        return any(c.label.startswith("IN:") or has_in(c) for c in n.children)
    return any(has_in(c) for c in root.children)
