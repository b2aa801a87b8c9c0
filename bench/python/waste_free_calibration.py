#!/usr/bin/python3
"""Waste-free SMC beside the default SMC on evidence-suite problems (docs/smc.md, "Waste-free
SMC"): for each problem and setting, one logz.evidence run per seed (one thread, no second run,
no refining run) and the mean and spread of the error against the exact log evidence, the mean
SE, the RMS of z = error / SE (1 for a calibrated error bar), the evaluations and the flags.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/waste_free_calibration.py \\
        linreg-d10,mixture-d10 20 '{"default": {}, "P = 10": {"waste_free_chain_length": 10}}'
"""
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "evidence"))

import logz  # noqa: E402
import problems as P  # noqa: E402

ONE_RUN = {"target_se": None, "refine": False}


def main(names, num_seeds, settings):
    for name in names:
        problem = P.make(*P.parse_name(name))
        prior = P.logz_prior(problem)
        for label, options in settings.items():
            errors, ses, evaluations, seconds, flags = [], [], [], [], set()
            for seed in range(num_seeds):
                start = time.time()
                r = logz.evidence(problem.log_likelihood, prior, grad=problem.grad, seed=seed, progress=False,
                                  threads=1, **{**ONE_RUN, **options})
                seconds.append(time.time() - start)
                errors.append(r.log_z - problem.exact_log_z)
                ses.append(r.std_error)
                evaluations.append(r.num_evaluations)
                flags |= set(r.flags)
            errors, ses = np.array(errors), np.array(ses)
            spread = errors.std(ddof=1) if len(errors) > 1 else float("nan")
            print(f"{name:14s} {label:10s} error mean {errors.mean():+.3f} sd {spread:.3f} | SE mean {ses.mean():.3f} | "
                  f"RMS z {np.sqrt(((errors / ses) ** 2).mean()):.2f} | evaluations {np.mean(evaluations):.3g} | "
                  f"var x evals {spread ** 2 * np.mean(evaluations):.3g} | {np.mean(seconds):.1f} s | {sorted(flags)}",
                  flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(sys.argv[1].split(","), int(sys.argv[2]), json.loads(sys.argv[3]))
