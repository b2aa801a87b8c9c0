#!/usr/bin/python3
"""Hamiltonian AIS on a complete 36-dimensional Laplace product of experts, three ways: the cost
of logz against plain numpy on the same algorithm and the same model.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python/hais_poe_timing.py --num-steps 100000

The work is that of examples/poe-36-laplace.toml (Sohl-Dickstein & Culpepper 2011, model 3a):
E(x) = sum_j lambda_j |phi_j . x| with Phi a seeded random 36 x 36 orthogonal matrix and
lambda = 1, annealed from N(0, 1.5^2 I) along U_t = (1 - t) U_base + t U_poe on a linear
schedule, with HAIS (one leapfrog step of 0.2 per temperature, momentum kept across
temperatures and partially refreshed with gamma = 1 - 2^(-0.2)). Rows:

  plain numpy           the algorithm written out below on a (P, d) array, one product with
                        Phi for the energy and one for the gradient per temperature;
  numpy Target in logz  logz.anneal on a logz.Target whose energy_and_grad is the same numpy
                        function as plain numpy's (one call per chunk of 100 particles and
                        temperature; logz keeps the loop, the random numbers and the kernel);
  Target, float normals the same with the kernel's normals="float" (below);
  native logz           logz.anneal on logz.models.ProductOfExperts (C++ energies, no Python);
  native logz, float    the same with precision="float" (the filter products in single
                        precision; energies summed and works accumulated in double);
  native, float normals the same with the kernel's normals="float" too (the momentum refresh
                        drawn by Box-Muller in single precision).

Each row is timed by wall clock (time.perf_counter) and by the CPU time of the process
(time.process_time, all threads). The rows run in turn, round after round (--rounds), and each
row's best round is reported, with the ratios numpy CPU / row CPU (how many times less CPU the
row needs than plain numpy) and numpy wall / row wall (how many times sooner it is done; the
same on one thread, more where --threads gives logz more cores than plain numpy's one). The AIS estimates are printed beside the exact log Z
(sum_j log(2 / lambda_j) - log |det Phi|) to show every row computes the right thing; with 200
paths their standard error is a few hundredths of a nat at 10^5 temperatures. A script to run
by hand, not a ctest.
"""
import argparse
import math
import os
import sys
import time

# Single-threaded BLAS by default, so that the numpy row is one core's work like logz with
# --threads 1, and no BLAS thread pool spins on the small products (36 x 36 times 36 x 200).
# Set the variables in the environment to override.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

try:
    import logz
except ImportError as e:  # the module is not built (or PYTHONPATH does not point at it)
    logz = None
    LOGZ_ERROR = str(e)

DIM, SIGMA, STEP_SIZE, HALF_LIFE, PARAMETER_SEED = 36, 1.5, 0.2, 1.0, 1
# logz.anneal's options for plain numpy's work: its kernel, and forward paths only on the linear
# schedule (logz.anneal's defaults add reverse paths and a pilot that places the temperatures).
LIKE_NUMPY = dict(step_size=STEP_SIZE, leapfrog_steps=1, momentum_half_life=HALF_LIFE, directions=("forward",),
                  schedule="linear")


def poe_parameters():
    """Phi: a seeded random orthogonal matrix (Q of the QR of a Gaussian matrix); lambda = 1."""
    q, r = np.linalg.qr(np.random.default_rng(PARAMETER_SEED).standard_normal((DIM, DIM)))
    return q * np.sign(np.diag(r)), np.ones(DIM)  # signs fixed so Q is unique (Haar)


def exact_log_z(phi, lam):
    """log Z of a complete Laplace PoE: each expert integrates to 2 / lambda, then change variables."""
    return float(np.sum(np.log(2.0 / lam)) - np.linalg.slogdet(phi)[1])


def plain_numpy_hais(phi, lam, num_steps, num_paths, seed):
    """Forward works of HAIS, the kernel of logz (include/logz/kernels/hais.hpp) per temperature:
    one velocity-Verlet leapfrog step on U_t, Metropolis on H = U_t + |v|^2/2 with v negated on
    acceptance, then v <- -sqrt(1 - gamma) v + sqrt(gamma) r. Returns (works, mean acceptance)."""
    rng = np.random.default_rng(seed)
    eps, s2 = STEP_SIZE, SIGMA**2
    gamma = 1.0 - 2.0 ** (-eps / HALF_LIFE)
    keep, add = -math.sqrt(1.0 - gamma), math.sqrt(gamma)

    poe = poe_function(phi, lam)  # energy and gradient of every row: one product with Phi each

    X = SIGMA * rng.standard_normal((num_paths, DIM))  # exact base draws
    V = rng.standard_normal((num_paths, DIM))  # momenta start N(0, I)
    Ep, Gp = poe(X)  # kept current at X, as logz's batch does: one evaluation per temperature
    Eb = 0.5 * np.sum(X * X, axis=1) / s2
    W = np.zeros(num_paths)
    accepted = 0
    for k in range(1, num_steps + 1):
        t_prev, t = (k - 1) / num_steps, k / num_steps
        W += (t - t_prev) * (Ep - Eb)  # U_t(x) - U_t_prev(x) at fixed x
        if k == num_steps:  # no move at the end of the path
            break
        # Leapfrog on U_t = (1 - t) U_base + t U_poe: half kick, drift, half kick.
        V1 = V - 0.5 * eps * ((1.0 - t) / s2 * X + t * Gp)
        X1 = X + eps * V1
        Ep1, Gp1 = poe(X1)
        Eb1 = 0.5 * np.sum(X1 * X1, axis=1) / s2
        V1 -= 0.5 * eps * ((1.0 - t) / s2 * X1 + t * Gp1)
        H0 = (1.0 - t) * Eb + t * Ep + 0.5 * np.sum(V * V, axis=1)
        H1 = (1.0 - t) * Eb1 + t * Ep1 + 0.5 * np.sum(V1 * V1, axis=1)
        acc = np.log(rng.random(num_paths)) < H0 - H1
        accepted += int(acc.sum())
        a = acc[:, None]
        X, V, Gp = np.where(a, X1, X), np.where(a, -V1, V), np.where(a, Gp1, Gp)
        Ep, Eb = np.where(acc, Ep1, Ep), np.where(acc, Eb1, Eb)
        V = keep * V + add * rng.standard_normal((num_paths, DIM))  # partial momentum refresh
    return W, accepted / max(1, (num_steps - 1) * num_paths)


def ais_log_z(works, log_z0):
    """-logmeanexp(-W) + log Z0, and its delta-method standard error."""
    a = -works
    m = a.max()
    w = np.exp(a - m)
    se = w.std(ddof=1) / (w.mean() * math.sqrt(len(w)))
    return m + math.log(w.mean()) + log_z0, se


# How the user's function writes the experts' gradient lambda_j sign(u_j) (--sign): "sign" is
# np.sign(U) * lam, whose loop branches on every element's sign (about 4 ns each on random signs,
# half of the function's time); "copysign" is np.copysign(lam, U), a branch-free loop (it gives
# +-lambda at u = 0, a point of measure zero). Both rows use the same one.
SIGN = "sign"


def poe_function(phi, lam):
    """(energies, gradients) of the rows of X: one product with Phi for both."""
    if SIGN == "copysign":
        def poe(X):
            U = X @ phi.T
            return np.abs(U) @ lam, np.copysign(lam, U) @ phi
    else:
        def poe(X):
            U = X @ phi.T
            return np.abs(U) @ lam, (np.sign(U) * lam) @ phi
    return poe


def numpy_target(phi, lam, exact, wrap=lambda f: f):
    """The PoE as a logz.Target of numpy functions, each passed through wrap (a timer, say)."""
    def energy(X):
        return np.abs(X @ phi.T) @ lam

    poe = poe_function(phi, lam)
    return logz.Target(DIM, wrap(energy), wrap(lambda X: poe(X)[1]), energy_and_grad=wrap(poe),
                       exact_log_z=exact)


def timed(run):
    """(wall s, CPU s, run's result)."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = run()
    return time.perf_counter() - w0, time.process_time() - c0, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num-steps", type=int, default=100000, help="temperatures K (default 1e5, the issue's)")
    ap.add_argument("--num-paths", type=int, default=200, help="particles (default 200)")
    ap.add_argument("--threads", type=int, default=1, help="logz's threads (the numpy row uses one)")
    ap.add_argument("--rounds", type=int, default=1, help="rounds of all rows; each row's best is reported")
    ap.add_argument("--skip-numpy", action="store_true", help="leave out the plain numpy row")
    ap.add_argument("--chunk-size", type=int, default=None,
                    help="logz's particles per chunk (default: 100 for the Target, the registry's for the model)")
    ap.add_argument("--sign", choices=("sign", "copysign"), default="sign",
                    help="how the user's function writes lambda sign(u) (both rows alike; default sign)")
    args = ap.parse_args()
    global SIGN
    SIGN = args.sign

    phi, lam = poe_parameters()
    exact = exact_log_z(phi, lam)
    log_z0 = 0.5 * DIM * math.log(2.0 * math.pi * SIGMA**2)
    K, P, T = args.num_steps, args.num_paths, args.threads
    print(f"HAIS, complete Laplace PoE d = {DIM}: {K} temperatures, {P} paths, logz threads {T}, "
          f"step {STEP_SIZE}, half-life {HALF_LIFE}; exact log Z {exact:.4f}, log Z0 {log_z0:.4f}")

    rows = {}  # name -> function returning (log Z estimate, its SE, exact)
    if not args.skip_numpy:
        def plain():
            W, acc = plain_numpy_hais(phi, lam, K, P, seed=0)
            est, se = ais_log_z(W, log_z0)
            print(f"  plain numpy: acceptance {acc:.3f}", flush=True)
            return est, se, exact
        rows["plain numpy"] = plain

    if logz is None:
        print(f"note: import logz failed ({LOGZ_ERROR}); running plain numpy only "
              "(build the module and set PYTHONPATH=build/python)")
    else:
        options = dict(kernel="hais", num_steps=K, num_paths=P, seed=0, threads=T, progress=False,
                       chunk_size=args.chunk_size, **LIKE_NUMPY)
        base = logz.GaussianBase(DIM, sigma=SIGMA)

        def via_logz(target, **more):
            def run():
                r = logz.anneal(target, base=base, **options, **more)
                e = r.estimates["ais"]
                ref = r.reference_log_z if r.reference_log_z is not None else exact
                return e.log_z, e.std_error, ref
            return run

        rows["numpy Target in logz"] = via_logz(numpy_target(phi, lam, exact))
        rows["Target, float normals"] = via_logz(numpy_target(phi, lam, exact), normals="float")
        models = getattr(logz, "models", None)
        if models is None:
            try:
                import logz.models as models  # a submodule, if it is one
            except ImportError:
                models = None
        if models is None or not hasattr(models, "ProductOfExperts"):
            print("native: logz.models not available")
        else:
            rows["native logz"] = via_logz(models.ProductOfExperts(phi, lam, expert="laplace"))
            try:
                float_poe = models.ProductOfExperts(phi, lam, expert="laplace", precision="float")
                rows["native logz, float"] = via_logz(float_poe)
                rows["native, float normals"] = via_logz(float_poe, normals="float")
            except TypeError:  # a module from before the precision option
                pass

    if not rows:
        print("nothing to run")
        return 1
    best = {}  # name -> (wall, cpu, est, se, ref) of the round with least CPU
    for rnd in range(args.rounds):
        for name, run in rows.items():  # rows in turn, so drifts in machine speed hit all alike
            wall, cpu, (est, se, ref) = timed(run)
            print(f"  round {rnd + 1} {name}: wall {wall:.2f} s, CPU {cpu:.2f} s", flush=True)
            if name not in best or cpu < best[name][1]:
                best[name] = (wall, cpu, est, se, ref)

    numpy_wall, numpy_cpu = best["plain numpy"][:2] if "plain numpy" in best else (None, None)

    def ratio(numpy_time, time):
        return f"{numpy_time / time:.2f}" if numpy_time is not None and time > 0 else "n/a"

    print(f"\n{'row':<22}{'wall s':>9}{'CPU s':>9}{'log Z (SE)':>20}{'exact':>10}{'numpy CPU / row CPU':>22}"
          f"{'numpy wall / row wall':>24}")
    for name, (wall, cpu, est, se, ref) in best.items():
        print(f"{name:<22}{wall:9.2f}{cpu:9.2f}{f'{est:.4f} ({se:.4f})':>20}{ref:10.4f}{ratio(numpy_cpu, cpu):>22}"
              f"{ratio(numpy_wall, wall):>24}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
