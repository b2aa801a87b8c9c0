#!/usr/bin/python3
"""Times MBAR's expectations and bootstrap uncertainties in pymbar and in logz.compat.pymbar on
the same K = 100 harmonic states x 10^4 samples (issue 43), through the same pymbar 3 calls.

Usage: PYTHONPATH=build/python pymbar_expectations_timing.py [--per-state N] [--bootstraps B]
                                                             [--skip-pymbar-bootstrap] [--logz-only]

The states u_k(x) = c_k x^2 / 2, c_k = 1 + 9 k / 99, 10^4 exact samples each (numpy, seed 1), as
bench/peers/pymbar_mbar_timing.py draws them. For each library, in this one process (CPU time by
time.process_time, OPENBLAS_NUM_THREADS=1 so both are single-threaded):

- solve: MBAR(u_kn, N_k) (pymbar's default relative_tolerance 1e-7; logz solves to a relative
  gradient of 1e-10);
- expectations: computeExpectations(x^2) (averages, with uncertainties) after the solve, and
  its largest difference from the exact <x^2>_k = 1 / c_k in standard errors;
- bootstrap: MBAR(u_kn, N_k, nbootstraps=B, rseed=0) then
  getFreeEnergyDifferences(uncertainty_method='bootstrap'), the time over the plain solve's
  (the faster of two; pymbar 3.1 bootstraps free energies only, not expectations).

Prints each time, the ratios pymbar / logz and the largest differences between the two
libraries' answers. A script to run by hand (pymbar's bootstrap re-solves B times at about a
minute and a half each at the full size).
"""
import argparse
import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

K_STATES = 100


def harmonic(per_state):
    c = 1.0 + 9.0 * np.arange(K_STATES) / (K_STATES - 1)
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(0.0, 1.0 / np.sqrt(ck), per_state) for ck in c])
    u_kn = 0.5 * np.outer(c, x * x)
    return c, x, u_kn, np.full(K_STATES, per_state)


def timed(f):
    t0 = time.process_time()
    out = f()
    return out, time.process_time() - t0


def measure(MBAR, c, x, u_kn, N_k, bootstraps, do_bootstrap):
    mbar, solve = timed(lambda: MBAR(u_kn, N_k))
    (mean, se), expect = timed(lambda: mbar.computeExpectations(x * x)[:2])
    mean, se = np.asarray(mean).ravel(), np.asarray(se).ravel()
    out = dict(solve=solve, expectations=expect, mean=mean, se=se,
               z_max=float(np.max(np.abs(mean - 1.0 / c) / se)))
    if do_bootstrap:
        def boot():
            m = MBAR(u_kn, N_k, nbootstraps=bootstraps, rseed=0)
            return m.getFreeEnergyDifferences(uncertainty_method="bootstrap")
        _, again = timed(lambda: MBAR(u_kn, N_k))  # the plain solve once more, warm
        (df, ddf), total = timed(lambda: boot()[:2])
        out.update(bootstrap=total - min(solve, again), ddf=np.asarray(ddf))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-state", type=int, default=10000)
    ap.add_argument("--bootstraps", type=int, default=2)
    ap.add_argument("--skip-pymbar-bootstrap", action="store_true")
    ap.add_argument("--logz-only", action="store_true", help="time logz alone")
    args = ap.parse_args()
    import pymbar
    from logz.compat import pymbar as logz_pymbar
    c, x, u_kn, N_k = harmonic(args.per_state)
    print(f"{K_STATES} states x {args.per_state} samples, {args.bootstraps} bootstraps", flush=True)
    ours = measure(logz_pymbar.MBAR, c, x, u_kn, N_k, args.bootstraps, True)
    print(f"logz:   solve {ours['solve']:.2f} s, expectations {ours['expectations']:.3f} s, "
          f"bootstrap {ours['bootstrap']:.2f} s, max |z| of <x^2> {ours['z_max']:.2f}", flush=True)
    if args.logz_only:
        return 0
    theirs = measure(pymbar.MBAR, c, x, u_kn, N_k, args.bootstraps, not args.skip_pymbar_bootstrap)
    print(f"pymbar: solve {theirs['solve']:.2f} s, expectations {theirs['expectations']:.3f} s, "
          + (f"bootstrap {theirs['bootstrap']:.2f} s, " if "bootstrap" in theirs else "")
          + f"max |z| of <x^2> {theirs['z_max']:.2f}", flush=True)
    print(f"pymbar / logz: solve {theirs['solve'] / ours['solve']:.1f}, "
          f"expectations {theirs['expectations'] / ours['expectations']:.1f}"
          + (f", bootstrap {theirs['bootstrap'] / ours['bootstrap']:.1f}" if "bootstrap" in theirs else ""))
    print(f"largest differences: <x^2> {np.max(np.abs(ours['mean'] - theirs['mean'])):.2e}, "
          f"its SE {np.max(np.abs(ours['se'] - theirs['se'])):.2e}"
          + (f", bootstrap dDelta_f {np.max(np.abs(ours['ddf'] - theirs['ddf'])):.2e} "
             f"(the same resamples: logz draws them with pymbar's random stream)"
             if "bootstrap" in theirs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
