"""logz.evidence: the log evidence log integral prior(x) L(x) dx by adaptive tempered SMC from the
prior to the posterior (docs/evidence.md), or by parallel tempering between them."""
from __future__ import annotations

import contextlib
import ctypes
import math
import re
import sys
from typing import Any, Callable, Optional, Union

import numpy as np

from . import priors as _priors
from ._logz import InputError, InvalidArgument, _evidence, _run_posterior

# Particles per call of the likelihood (and of a Custom prior's functions): a Python call costs
# microseconds, paid once per 100 particles; fixed, so results do not depend on the threads.
EVIDENCE_CHUNK_SIZE = 100

MOVES = ("hmc", "mala", "random_walk")
PRECONDITIONERS = ("automatic", "dense", "diagonal", "none")
RESAMPLINGS = ("multinomial", "systematic")

# The SmcOptions fields logz.evidence takes as keyword arguments, and what each must be.
_INT_OPTIONS = {"num_particles": 2, "leapfrog_steps": 1, "max_leapfrog_steps": 1, "min_moves": 0,
                "max_moves": 1, "max_temperatures": 1, "chunk_size": 1, "waste_free_chain_length": 0}
_FLOAT_OPTIONS = ("cess_target", "resample_threshold", "initial_step_size", "target_acceptance",
                  "min_step_size", "max_step_size", "decorrelation", "frozen_acceptance",
                  "trajectory_length")
_CHOICE_OPTIONS = {"move": MOVES, "preconditioner": PRECONDITIONERS, "resampling": RESAMPLINGS}


class EvidenceResult:
    """What logz.evidence returns.

    log_z: the log evidence; std_error: its standard error (genealogy estimate; NaN plus a flag
    where it cannot be estimated); flags: what makes the answer doubtful (docs/evidence.md);
    num_evaluations: the particles the log-likelihood and its gradient were called on, in all (a
    log L and a gradient at one point are two);
    move: the MCMC move used ("hmc", "mala", "random_walk"); note: why where it was not the
    default; diagnostics: a dict per temperature (temperatures 0, t_1, ..., 1; log_z_increments,
    ess (fraction of N), resampled, moves, acceptance, step_sizes, jump_ratios, one per
    temperature after 0) and for the run (num_resamplings, num_eves, relative_variance,
    likelihood_evaluations, gradient_evaluations: num_evaluations split, ...); samples: the posterior particles, (N, d), with
    normalised log_weights (N,) (weights: their exp); runtime_s.
    """

    def __init__(self, d: Any, *, note: str = "") -> None:
        self.log_z = d["log_z"]
        self.std_error = d["std_error"]
        self.flags = list(d["flags"])
        self.num_evaluations = d["num_evaluations"]
        self.move = d["move"]
        self.note = note
        self.samples = d["samples"]
        self.log_weights = d["log_weights"]
        self.runtime_s = d["runtime_s"]
        self.diagnostics = {k: d[k] for k in (
            "temperatures", "log_z_increments", "ess", "resampled", "moves", "acceptance", "step_sizes",
            "jump_ratios", "num_resamplings", "num_eves", "relative_variance", "likelihood_evaluations",
            "gradient_evaluations")}
        self.diagnostics.update({k: v for k, v in d["values"] if k not in self.diagnostics})
        if "refined" in d:
            self.diagnostics["refined"] = dict(d["refined"])

    @classmethod
    def _of_parallel_tempering(cls, r: Any, note: str) -> "EvidenceResult":
        """The result of parallel tempering from the prior to the posterior (a logz.Result): its
        stepping-stone estimate, the target replica's kept positions as equally weighted samples,
        and in diagnostics the ladder (temperatures), every estimate, the kernel and details["pt"]."""
        self = cls.__new__(cls)
        d = r.to_dict()
        e = r.estimates["stepping_stone"]
        self.log_z, self.std_error, self.flags = e.log_z, e.std_error, list(e.flags)
        self.num_evaluations = d["details"]["num_evaluations"]
        self.move = d["kernel"]["type"]
        self.note = note
        self.samples = np.array(r.details["pt"].get("target_samples", []), dtype=np.float64)
        self.samples = self.samples.reshape(len(self.samples), d["model"]["dim"])
        self.log_weights = np.full(len(self.samples), -math.log(max(len(self.samples), 1)))
        self.runtime_s = r.runtime_s
        self.diagnostics = {"method": "parallel_tempering", "temperatures": list(r.fractions),
                            "acceptance": list(r.acceptance), "estimates": dict(r.estimates),
                            "kernel": d["kernel"], "pt": r.details["pt"]}
        return self

    @property
    def weights(self) -> np.ndarray:
        """The samples' normalised weights, exp(log_weights), shape (N,)."""
        return np.exp(self.log_weights)

    @property
    def num_temperatures(self) -> int:
        """The temperatures the run went through after t = 0 (t = 1 the last)."""
        return len(self.diagnostics["temperatures"]) - 1

    def posterior_mean(self) -> np.ndarray:
        """The weighted mean of the samples, shape (d,)."""
        return self.weights @ self.samples

    def __repr__(self):
        flags = f", flags={self.flags}" if self.flags else ""
        return (f"EvidenceResult(log_z={self.log_z:.6g}, std_error={self.std_error:.3g}, move={self.move!r}, "
                f"num_temperatures={self.num_temperatures}, num_evaluations={self.num_evaluations}{flags})")


def _fail(argument, expected, got):
    raise InvalidArgument(f"logz.evidence: {argument}: expected {expected}, got {got!r}")


def _options(seed, threads, options):
    out = {"chunk_size": EVIDENCE_CHUNK_SIZE}
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2 ** 64:
        _fail("seed", "an integer in [0, 2^64)", seed)
    out["seed"] = int(seed)
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 0 <= threads < 2 ** 16:
            _fail("threads", "an integer >= 0 (0 or None: every hardware thread)", threads)
    out["threads"] = 0 if threads is None else int(threads)
    # None: every hardware thread, or one where the timed first moves find one faster (the GIL's
    # hand-offs between threads can cost more than a cheap likelihood; the same bits either way).
    out["choose_threads"] = threads is None
    for key, value in options.items():
        if value is None:
            continue
        if key in _INT_OPTIONS:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < _INT_OPTIONS[key] \
                    or value >= 2 ** 32:
                _fail(key, f"an integer >= {_INT_OPTIONS[key]}", value)
            out[key] = int(value)
        elif key in _FLOAT_OPTIONS:
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(value):
                _fail(key, "a finite number", value)
            out[key] = float(value)
        elif key in _CHOICE_OPTIONS:
            if value not in _CHOICE_OPTIONS[key]:
                _fail(key, " or ".join(f'"{c}"' for c in _CHOICE_OPTIONS[key]), value)
            out[key] = value
        elif key in ("adapt_step_size", "refine"):
            if not isinstance(value, bool):
                _fail(key, "True or False", value)
            out[key] = value
        else:
            known = sorted([*_INT_OPTIONS, *_FLOAT_OPTIONS, *_CHOICE_OPTIONS, "adapt_step_size"])
            raise TypeError(f"logz.evidence: unexpected keyword argument {key!r} (the SMC options: {', '.join(known)})")
    return out


@contextlib.contextmanager
def _one_blas_thread():
    """numpy's OpenBLAS held to one thread during a run: logz's threads call the likelihood in
    parallel already, and BLAS threads on top of them (which spin while they wait) oversubscribe
    the cores: issue 45's regression took 100 s instead of 7 s on 2 cores. Restored after."""
    held = []
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({line.split()[-1] for line in f if "openblas" in line and ".so" in line})
        for path in paths:
            lib = ctypes.CDLL(path)
            if hasattr(lib, "openblas_set_num_threads") and hasattr(lib, "openblas_get_num_threads"):
                held.append((lib, lib.openblas_get_num_threads()))
                lib.openblas_set_num_threads(1)
    except OSError:  # no /proc (not Linux) or a library that will not open: leave BLAS as it is
        pass
    try:
        yield
    finally:
        for lib, n in reversed(held):  # one library may be open under two names
            lib.openblas_set_num_threads(n)


def _printer(stream):
    def show(t, ess, resampled, moves, acceptance, step_size):
        if t >= 1.0:
            stream.write(f"logz.evidence: t = 1 reached, ESS {ess:.2f} N\n")
        else:
            stream.write(f"logz.evidence: t = {t:<10.4g} ESS {ess:.2f} N{', resampled' if resampled else ''}, "
                         f"{moves} moves, acceptance {acceptance:.2f}, step {step_size:.3g}\n")
        stream.flush()
    return show


# When a run's SE exceeds target_se it is run again, once, with N (SE / target_se)^2 times this
# many particles (SE^2 falls as 1/N; the margin covers the noise of the SE estimate).
GROWTH_MARGIN = 1.3
# Where the run from the prior and the refining run disagree (pilot_disagrees), one of the two
# error bars is wrong: sizing the second run on it
# bought no more than a larger second run does. It is this many times the first (shells-d100
# seed 1, before SMC's whitening under a box prior was mended: a first run +1.97 +- 0.23,
# flagged, sized the second at 7x, 85 s of the suite's 60).
DISAGREE_GROWTH = 3


def _grown_particles(n, se, target_se, max_particles, chain_length=0, disagree=False):
    """The particles of the second run, a multiple of the chunk size (and of a waste-free run's
    chain length), at most max_particles (for a waste-free run, rounded down to a multiple of its
    chain length)."""
    step = math.lcm(EVIDENCE_CHUNK_SIZE, chain_length or 1)
    want = n * (se / target_se) ** 2 * GROWTH_MARGIN if math.isfinite(se) else max_particles
    if disagree:  # neither SE sizes it (one is wrong): a fixed multiple
        want = n * DISAGREE_GROWTH
    largest = max_particles // chain_length * chain_length if chain_length else max_particles
    return int(min(largest, max(n + step, math.ceil(want / step) * step)))


# logz.evidence(method="parallel_tempering")'s options: the config key each sets and its least value.
_PT_OPTIONS = {"rounds": ("pt", 1), "num_chains": ("pt", 1), "num_replicas": ("pt", 0),
               "target_samples": ("pt", 0), "leapfrog_steps": ("kernel", 1)}
PT_SCHEMES = ("nonreversible", "reversible")
# Chains per chunk under parallel tempering: a replica's batch holds a chunk's chains, so the
# functions are called with 10 particles at a time (not 1), and 20 chains still fill 2 threads;
# fixed, so that results do not depend on the threads.
PT_CHUNK_SIZE = 10


def _evidence_pt(log_likelihood, grad, blocks, seed, threads, progress, missing, options):
    """logz.evidence by parallel tempering (the continuous models' [pt] service on the path from the
    prior to the posterior): HMC with step sizes per replica where gradients are given, else
    random-walk Metropolis."""
    from . import _argument_error, _with_progress  # the package's, imported once it is loaded
    config = {"run": {"method": "parallel_tempering", "seed": int(seed)},
              "pt": {"target_samples": 1000, "chunk_size": PT_CHUNK_SIZE}, "kernel": {"type": "metropolis" if missing else "hmc"}}
    if threads is not None:
        config["run"]["threads"] = int(threads)
    for key, value in options.items():
        if value is None:
            continue
        if key in _PT_OPTIONS:
            section, least = _PT_OPTIONS[key]
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not least <= value < 2 ** 31:
                _fail(key, f"an integer >= {least}", value)
            config[section][key] = int(value)
        elif key == "scheme":
            if value not in PT_SCHEMES:
                _fail(key, " or ".join(f'"{c}"' for c in PT_SCHEMES), value)
            config["pt"]["scheme"] = value
        else:
            raise TypeError(f"logz.evidence: unexpected keyword argument {key!r} (with method=\"parallel_tempering\": "
                            f"{', '.join(sorted([*_PT_OPTIONS, 'scheme']))})")
    note = f"gradient-free random-walk Metropolis moves: {'; '.join(missing)}" if missing else ""
    if progress is True and note:
        sys.stderr.write(f"logz.evidence: {note}\n")
    try:
        with _one_blas_thread():
            r = _with_progress(progress,
                               lambda shown: _run_posterior(log_likelihood, grad, blocks, config, shown))
    except InputError as error:
        argument_error = _argument_error(error, "logz.evidence")
        if argument_error is None:
            raise
        raise argument_error from None
    return EvidenceResult._of_parallel_tempering(r, note)


def evidence(log_likelihood: Callable[[np.ndarray], Any], prior: _priors.Prior, *,
             grad: Optional[Callable[[np.ndarray], Any]] = None, seed: int = 0, threads: Optional[int] = None,
             progress: Union[bool, Callable[..., Any]] = True, target_se: Optional[float] = 0.1,
             max_particles: int = 20000, method: str = "smc", **options: Any) -> EvidenceResult:
    """The log evidence log integral prior(x) L(x) dx, by adaptive tempered SMC from the prior
    (or, with method="parallel_tempering", by parallel tempering between prior and posterior).

    Parameters
    ----------
    log_likelihood : callable
        log_likelihood(X), X a read-only float64 array of shape (P, d), one parameter vector
        per row; returns log L of every row, shape (P,): finite, or -inf where the likelihood
        is 0 (NaN and +inf are errors naming the particle). Called with batches of 100
        particles.
    prior : logz.priors.Prior
        Normal, Uniform, StudentT, Custom, or a Product of them (a & b); its dimension is d.
    grad : callable, optional
        grad(X), d log L / dx of every row, shape (P, d). Without it (or without a Custom
        prior's grad_log_density) the moves are gradient-free (random walk), which result.move
        and result.note say; with it, HMC.
    seed : int
        The same seed gives bitwise the same result for any number of threads.
    threads : int, optional
        0: every hardware thread; None (the default): every hardware thread unless the first
        moves, timed on all and on one, run faster on one (a likelihood cheaper than Python's
        lock's hand-offs between threads).
    progress : bool or callable
        True prints a line per temperature on stderr; False none; a callable is called as
        progress(t, ess, resampled, moves, acceptance, step_size) after every temperature.
    target_se : float, optional
        When the run's standard error is above it (0.1 nat), the run is repeated once with the
        particles that should reach it (N (SE / target_se)^2 x 1.3, at most max_particles, and
        at most 3 N where the two runs disagree, flagged pilot_disagrees) and
        the larger run is the result (the first run's evaluations are counted in
        num_evaluations; diagnostics["num_particles_runs"] lists both sizes); an SE still above
        1.5 target_se is flagged std_error_above_target. None: one run.
    max_particles : int
        The largest second run (20000).
    method : str
        "smc" (the default, above) or "parallel_tempering": the geometric path from the prior
        to the posterior, prior x L^t, by logz.pt's method (docs/parallel_tempering.md:
        non-reversible swaps, an adaptive ladder, HMC with a step size per replica from a
        pilot, or random-walk Metropolis without gradients); options rounds, num_chains,
        num_replicas, scheme, target_samples (1000) and leapfrog_steps; target_se and
        max_particles do not apply. log_z and std_error are stepping stone's, samples the
        target replica's kept positions (equal weights), diagnostics the ladder
        ("temperatures"), the kernel's acceptance per replica, every estimate ("estimates":
        stepping stone and MBAR) and the swaps' diagnostics ("pt"); progress True shows a bar
        of scans, a callable is called as progress(stage, done, total).
    **options
        None is needed: num_particles (1000), move ("hmc" with a gradient, else "random_walk";
        or "mala"), preconditioner ("automatic": dense where the particles' correlations
        exceed their sampling noise, diagonal where not; "dense", "diagonal", "none"), cess_target (0.9),
        resample_threshold (0.5), resampling ("multinomial"), leapfrog_steps (2; HMC's steps per
        move are at least this and enough for a trajectory of trajectory_length (1.6, in
        whitened coordinates; 0: leapfrog_steps) at the step size, up to max_leapfrog_steps (50)),
        initial_step_size, adapt_step_size, target_acceptance, min_step_size, max_step_size,
        decorrelation (1), min_moves (1), max_moves (50), max_temperatures (1000),
        frozen_acceptance (0.05), chunk_size (100: particles per call), waste_free_chain_length
        (0; P > 0: waste-free SMC, N / P chains of P states each, all kept, N a multiple of P;
        its error bar reads low and every result is flagged error_bar_uncalibrated,
        docs/smc.md), refine (True: after the
        run from the prior, a second run of the same number of particles from a Gaussian
        fitted to its particles (normals truncated to the box where the prior has a Uniform
        block) to the posterior; where the two agree within 3 combined SEs + 0.05, neither
        is flagged and their SEs are within a factor 3, the answer is their inverse-variance
        weighted mean (SEs further apart: the more precise alone); the two disagreeing by
        more than that is flagged pilot_disagrees, the refining run's estimate is given
        where it is unflagged (the first's otherwise), and the run is repeated as for
        target_se;
        diagnostics["refined"] has both and the "answer" ("first", "refined", "combined");
        samples and per-temperature records stay the first run's).

    Returns
    -------
    logz.EvidenceResult
        log_z, std_error, flags, num_evaluations, move, diagnostics, samples, log_weights.

    Raises
    ------
    logz.InvalidArgument
        A ValueError naming the argument. The user's functions' own exceptions propagate as
        they raised them; Ctrl-C stops the run.

    Examples
    --------
    >>> import numpy as np, logz
    >>> r = logz.evidence(lambda X: -0.5 * (X ** 2).sum(axis=1) - np.log(2 * np.pi),
    ...                   logz.priors.Normal(np.zeros(2), 1.0), grad=lambda X: -X, progress=False)
    >>> abs(r.log_z - (-np.log(4 * np.pi))) < 5 * r.std_error + 0.02
    True
    """
    if not callable(log_likelihood):
        _fail("log_likelihood", "a function of X, shape (P, d), returning (P,)", log_likelihood)
    if not isinstance(prior, _priors.Prior):
        _fail("prior", "a logz.priors prior (Normal, Uniform, StudentT, Custom, Product)", prior)
    if grad is not None and not callable(grad):
        _fail("grad", "a function of X, shape (P, d), returning (P, d), or None", grad)
    if method not in ("smc", "parallel_tempering"):
        _fail("method", '"smc" or "parallel_tempering"', method)
    blocks = prior._blocks()
    missing = [] if grad is not None else ["no grad was given"]
    missing += [f"the Custom prior block {i} has no grad_log_density" for i, b in enumerate(blocks)
                if b[0] == "custom" and b[4] is None]
    if method == "parallel_tempering":
        _options(seed, threads, {})  # seed and threads checked as for SMC
        if not (progress is True or progress is False or progress is None or callable(progress)):
            _fail("progress", "True, False or a callable", progress)
        return _evidence_pt(log_likelihood, grad, blocks, seed, threads, progress, missing, options)
    o = _options(seed, threads, options)
    if target_se is not None and (isinstance(target_se, bool) or not isinstance(target_se, (int, float, np.number))
                                  or not 0 < target_se < math.inf):
        _fail("target_se", "a positive number, or None", target_se)
    if isinstance(max_particles, bool) or not isinstance(max_particles, (int, np.integer)) \
            or not 2 <= max_particles < 2 ** 32:
        _fail("max_particles", "an integer >= 2", max_particles)
    note = ""
    if "move" not in o:
        o["move"] = "random_walk" if missing else "hmc"
        if missing:
            note = f"gradient-free random-walk moves: {'; '.join(missing)}"
    elif o["move"] != "random_walk" and missing:
        _fail("move", f'"random_walk" ({"; ".join(missing)}), or a gradient', o["move"])
    if progress is True:
        shown = _printer(sys.stderr)
        if note:
            sys.stderr.write(f"logz.evidence: {note}\n")
    elif progress is False or progress is None:
        shown = None
    elif callable(progress):
        shown = progress
    else:
        _fail("progress", "True, False or a callable", progress)
    sizes = [o.get("num_particles", 1000)]
    try:
        with _one_blas_thread():
            d = _evidence(log_likelihood, grad, blocks, o, shown)
            spent = {k: d[k] for k in ("num_evaluations", "likelihood_evaluations", "gradient_evaluations")}
            grown = _grown_particles(sizes[0], d["std_error"], target_se or 1.0, max_particles,
                                     o.get("waste_free_chain_length", 0), "pilot_disagrees" in d["flags"])
            # A disagreement is repeated too: the estimate given is then the refining run's,
            # whose SE may be below target_se, and a larger run may agree.
            disagree = "pilot_disagrees" in d["flags"]
            if target_se is not None and (disagree or not d["std_error"] <= target_se) and grown > sizes[0]:
                sizes.append(grown)
                if progress is True:
                    why = ("the two runs disagree (pilot_disagrees)" if disagree else
                           f"SE {d['std_error']:.3g} > target_se {target_se:g}")
                    sys.stderr.write(f"logz.evidence: {why}: again with {sizes[1]} particles\n")
                d = _evidence(log_likelihood, grad, blocks, {**o, "num_particles": sizes[1]}, shown)
                for k, v in spent.items():
                    d[k] += v
    except InvalidArgument as error:
        # The SMC options' checks name the library's function: name the user's.
        raise InvalidArgument(re.sub(r"^logz::adaptive_smc", "logz.evidence", str(error))) from None
    result = EvidenceResult(d, note=note)
    result.diagnostics["num_particles_runs"] = sizes
    if target_se is not None and not result.std_error <= 1.5 * target_se \
            and "std_error_above_target" not in result.flags:
        result.flags.append("std_error_above_target")
    return result
