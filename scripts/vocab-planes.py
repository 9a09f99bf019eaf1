#!/usr/bin/env python3
"""Sizes of transforms of tokens/vocab/*.deflate's planes under raw DEFLATE
level 9 (BENCHMARKS.md, section hbin3). Run from the repository root."""
import bz2, struct, zlib

BT = (1 << 24) - 1  # tokens/vocab.go's byteToken


def planes(vals):
    return b"".join(bytes((v >> (8 * k)) & 255 for v in vals) for k in range(3))


def deflate(b):
    c = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    return len(c.compress(b) + c.flush())


def varint(vals):
    out = bytearray()
    for v in vals:
        while v >= 128:
            out.append(v & 127 | 128)
            v >>= 7
        out.append(v)
    return bytes(out)


def zigzag_prev(vals):
    out, prev = [], 0
    for v in vals:
        d = v - prev
        out.append(((d << 1) ^ (d >> 63)) & 0xFFFFFF)
        prev = v
    return out


for enc in ["cl100k_base", "o200k_base"]:
    raw = zlib.decompress(open(f"tokens/vocab/{enc}.deflate", "rb").read(), -15)
    n = struct.unpack("<I", raw[:4])[0]
    p = raw[4:]
    rank = lambda pl, r: p[3*pl*n + r] | p[3*pl*n + n + r] << 8 | p[3*pl*n + 2*n + r] << 16
    L = [rank(0, r) for r in range(n)]
    R = [rank(1, r) for r in range(n)]
    toks = []
    for r in range(n):
        toks.append(bytes([R[r]]) if L[r] == BT else toks[L[r]] + toks[R[r]])
    idx = {t: i for i, t in enumerate(toks)}

    def pairs(key):
        LL, RR = [], []
        for r, t in enumerate(toks):
            if len(t) == 1:
                LL.append(BT), RR.append(t[0])
                continue
            best = min((key(a, b), a, b) for k in range(1, len(t))
                       for a, b in [(idx.get(t[:k]), idx.get(t[k:]))]
                       if a is not None and b is not None and a < r and b < r)
            LL.append(best[1]), RR.append(best[2])
        return deflate(planes(LL) + planes(RR))

    dL = [r - l if l != BT else 0 for r, l in enumerate(L)]
    dR = [r - x if L[r] != BT else x for r, x in enumerate(R)]
    print(enc, n, {
        "today": deflate(raw),
        "rank-delta": deflate(planes(dL) + planes(dR)),
        "prev-delta-zigzag": deflate(planes(zigzag_prev(L)) + planes(zigzag_prev(R))),
        "interleaved": deflate(planes([v for pr in zip(L, R) for v in pr])),
        "varint": deflate(varint(L) + varint(R)),
        "pair-lowest-left": pairs(lambda a, b: (a, b)),
        "pair-lowest-sum": pairs(lambda a, b: a + b),
        "bzip2": len(bz2.compress(raw, 9)),
    }, flush=True)
