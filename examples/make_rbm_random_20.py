#!/usr/bin/env python3
"""Writes rbm-random-20.npz (a random binary RBM: W 16 x 20, a, b) and
rbm-random-20-data.npz (key "data": 500 exact samples of v, uint8), the inputs
of rbm-random-20.toml. Pure Python (no numpy): the .npz files are ZIP archives
of .npy images. Exact samples: p(v) = exp(-F(v)) / Z over all 2^16 visible
states, F(v) = -a.v - sum_j softplus(b_j + (W^T v)_j)."""
import bisect
import io
import math
import random
import struct
import zipfile

M, J, SCALE, ROWS, SEED = 16, 20, 0.5, 500, 20


def npy(shape, dtype, values):
    fmt = {"<f8": "<d", "|u1": "B"}[dtype]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        dtype, ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else ""))
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    out = io.BytesIO()
    out.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
    out.write(struct.pack("<%d%s" % (len(values), fmt[-1]), *values))
    return out.getvalue()


def save_npz(path, arrays):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for key, data in arrays.items():
            z.writestr(key + ".npy", data)


def softplus(x):
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


rng = random.Random(SEED)
W = [[SCALE * rng.gauss(0, 1) for _ in range(J)] for _ in range(M)]
a = [0.5 * SCALE * rng.gauss(0, 1) for _ in range(M)]
b = [0.5 * SCALE * rng.gauss(0, 1) for _ in range(J)]
save_npz("rbm-random-20.npz", {
    "W": npy((M, J), "<f8", [W[i][j] for i in range(M) for j in range(J)]),
    "a": npy((M,), "<f8", a),
    "b": npy((J,), "<f8", b),
})

log_p = []
for v in range(1 << M):
    bits = [(v >> i) & 1 for i in range(M)]
    s = sum(a[i] for i in range(M) if bits[i])
    for j in range(J):
        s += softplus(b[j] + sum(W[i][j] for i in range(M) if bits[i]))
    log_p.append(s)
top = max(log_p)
cdf, c = [], 0.0
for x in log_p:
    c += math.exp(x - top)
    cdf.append(c)
print("exact log Z = %.6f" % (top + math.log(c)))
rows = []
for _ in range(ROWS):
    v = min(bisect.bisect_left(cdf, rng.random() * c), len(cdf) - 1)
    rows.extend((v >> i) & 1 for i in range(M))
save_npz("rbm-random-20-data.npz", {"data": npy((ROWS, M), "|u1", rows)})
