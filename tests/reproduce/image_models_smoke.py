"""scripts/fit-image-models and scripts/reproduce/hais-table1 end to end at a tiny size, on
synthetic whitened "patches" (python3-skimage, which scripts/image-patches needs, is opt-in).

Checks what must hold whatever the fit's quality: every model file loads in `logz loglik` (the
table runs them all, and checks numpy's energies against logz's mean energy), the fitted
linear-Gaussian model satisfies Phi Phi^T + sigma_n^2 I = I (its maximum likelihood on whitened
data), so its exact log-likelihood is that of N(0, I), and the overcomplete POEs start as the
complete ones repeated four times; the bilinear fit keeps its conventions (Phi's columns of unit
length, Psi >= 0 with rows of unit L1 norm) and its row is finite.
Usage: image_models_smoke.py LOGZ SOURCE_DIR"""
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np


def main():
    logz, root = sys.argv[1], sys.argv[2]
    rng = np.random.Generator(np.random.PCG64(5))
    d = 6
    with tempfile.TemporaryDirectory() as tmp:
        # Sparse sources mixed by a random matrix, whitened on the training set.
        mix = rng.standard_normal((d, d))
        train, test = (rng.laplace(size=(n, d)) @ mix.T for n in (600, 150))
        w = np.linalg.inv(np.linalg.cholesky(np.cov(train.T)))
        train, test = train @ w.T, test @ w.T
        np.savez(os.path.join(tmp, "patches.npz"), X=test, X_train=train, X_test=test)
        np.savez(os.path.join(tmp, "poe-laplace.npz"), Phi=np.linalg.inv(w @ mix), **{"lambda": np.ones(d)})
        np.savez(os.path.join(tmp, "poe-student.npz"), Phi=np.linalg.inv(w @ mix), **{"lambda": np.full(d, 1.5)})
        subprocess.run(["/usr/bin/python3", os.path.join(root, "scripts", "fit-image-models"), tmp,
                        "--em-iterations", "8", "--sml-iterations", "8", "--mcrbm-iterations", "8",
                        "--bilinear-iterations", "8", "--bilinear-sizes", "8,3"], check=True)
        failures = []
        g = np.load(os.path.join(tmp, "linear-gaussian.npz"))
        s = float(g["sigma_noise"])
        if not np.allclose(g["Phi"] @ g["Phi"].T + s * s * np.eye(d), np.eye(d), atol=1e-10):
            failures.append("linear-gaussian: Phi Phi^T + sigma_n^2 I is not I")
        b = np.load(os.path.join(tmp, "bilinear.npz"))
        if b["Theta"].shape != (d, 8) or b["Psi"].shape != (d, 3):
            failures.append(f"bilinear: Theta {b['Theta'].shape}, Psi {b['Psi'].shape}, expected ({d}, 8), ({d}, 3)")
        if not np.allclose(np.linalg.norm(b["Phi"], axis=0), 1.0, atol=1e-12):
            failures.append("bilinear: Phi's columns are not of unit length")
        if b["Psi"].min() < 0 or not np.allclose(b["Psi"].sum(1), 1.0, atol=1e-12):
            failures.append("bilinear: Psi is not non-negative with rows of unit L1 norm")
        out = os.path.join(tmp, "table")
        env = dict(os.environ, LOGZ=logz, PATCHES=tmp, N_ANALYSIS="200", N_GENERATIVE="50", NS_FIG4="20",
                   NS_FIG4_HAIS="50")
        subprocess.run(["/usr/bin/python3", os.path.join(root, "scripts", "reproduce", "hais-table1"), out],
                       check=True, env=env)
        with open(os.path.join(out, "results.json")) as f:
            results = json.load(f)
        rows = {r["name"]: r for r in results["table"]["models"]}
        if not math.isfinite(results["table"]["radial_baseline"]):
            failures.append("table: the radial baseline is not finite")
        x100 = test[:100]
        exact = float(np.mean(-0.5 * np.sum(x100 * x100, axis=1) - 0.5 * d * math.log(2 * math.pi)))
        if abs(rows["linear-gaussian"]["exact"] - exact) > 1e-9:
            failures.append(f"linear-gaussian: exact {rows['linear-gaussian']['exact']}, N(0, I) gives {exact}")
        if len(rows) != 8 or any(not math.isfinite(r["L"]) for r in rows.values()):
            failures.append(f"table: expected 8 finite rows, got {[(k, r['L']) for k, r in rows.items()]}")
        if sorted(results["fig4"]["curves"]) != ["hais", "hais-0.1", "hmc", "metropolis"]:
            failures.append(f"fig4: curves {sorted(results['fig4']['curves'])}")
    if failures:
        sys.exit("FAIL:\n" + "\n".join(failures))
    print("PASS")


if __name__ == "__main__":
    main()
