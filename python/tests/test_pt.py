"""logz.pt: parallel tempering from Python (docs/parallel_tempering.md): a model and a user's
Target beside their exact log Z, the swaps' diagnostics in result.details["pt"], the same numbers
for any thread count and as `logz run`, keyword-only options with errors naming the argument, and
results that pickle with their details."""
import pickle

import numpy as np
import pytest

import logz


def near_exact(e, exact, allowance=0.005):
    return abs(e.log_z - exact) <= 5 * e.std_error + allowance


def test_ising_beside_kaufman_with_the_diagnostics():
    model = logz.models.Ising(6, 6, beta=1.0)
    r = logz.pt(model, kernel="heat_bath", site_order="checkerboard", steps_per_temperature=1, rounds=8,
                seed=3, progress=False)
    for name in ("stepping_stone", "mbar"):
        assert near_exact(r.estimates[name], r.reference_log_z), name
    pt = r.details["pt"]
    n = pt["num_replicas"]
    assert len(pt["schedule"]) == n and len(pt["rejection"]) == n - 1
    assert pt["global_barrier"] == pytest.approx(sum(pt["rejection"]))
    assert pt["scheme"] == "nonreversible" and pt["round_trips"] > 0
    assert 0 < pt["predicted_round_trip_rate"] <= pt["limit_round_trip_rate"]
    assert np.array_equal(r.fractions, pt["schedule"])
    assert len(r.mean_energy) == n and len(r.acceptance) == n
    again = pickle.loads(pickle.dumps(r))
    assert again.details == r.details
    assert again.estimates["stepping_stone"].log_z == r.estimates["stepping_stone"].log_z


def test_same_numbers_for_any_threads_and_as_the_cli_config():
    model = logz.models.Ising(5, 5, beta=0.5)
    runs = [logz.pt(model, rounds=6, num_chains=6, seed=2, threads=t, progress=False) for t in (1, 2)]
    assert runs[0].to_dict()["estimates"] == runs[1].to_dict()["estimates"]
    config = model.config() | {"run": {"method": "parallel_tempering", "seed": 2},
                               "pt": {"rounds": 6, "num_chains": 6}}
    assert logz.run(config, progress=False).to_dict()["estimates"] == runs[0].to_dict()["estimates"]


def test_a_user_target_beside_its_exact_log_z():
    s = np.array([0.5, 1.0, 2.0])
    exact = np.sum(np.log(np.sqrt(2 * np.pi) * s))
    t = logz.Target(3, lambda X: (X ** 2 / (2 * s ** 2)).sum(axis=1), lambda X: X / s ** 2, exact_log_z=exact)
    r = logz.pt(t, base=logz.GaussianBase(3, sigma=2.0), step_size=0.3, leapfrog_steps=5, rounds=8, seed=1,
                estimators=["stepping_stone", "mbar"], progress=False)
    assert set(r.estimates) == {"stepping_stone", "mbar"}
    for e in r.estimates.values():
        assert near_exact(e, exact, 0.02), e


def test_a_narrow_posterior_is_right_with_the_default_step_sizes():
    # Issue 45's Bayesian regression at d = 25 (n = 100, noise sd 1, prior N(0, I)): the posterior
    # is about 10x narrower than the prior. A fixed step size freezes the top replicas (acceptance
    # 0.00, log Z 3 nats low); the default per-temperature pilot gives every replica its own.
    d, n = 25, 100
    rng = np.random.default_rng(4501 + d)
    phi = rng.standard_normal((n, d))
    y = phi @ rng.normal(0.0, 1.0, size=d) + rng.normal(0.0, 1.0, size=n)
    cov = np.eye(n) + phi @ phi.T
    exact = -0.5 * (n * np.log(2 * np.pi) + np.linalg.slogdet(cov)[1] + y @ np.linalg.solve(cov, y))

    def energy(X):
        resid = y[None, :] - X @ phi.T
        return 0.5 * (resid ** 2).sum(axis=1) + 0.5 * (X ** 2).sum(axis=1) + 0.5 * (n + d) * np.log(2 * np.pi)

    t = logz.Target(d, energy, lambda X: -(y[None, :] - X @ phi.T) @ phi + X, exact_log_z=exact)
    r = logz.pt(t, rounds=8, seed=1, progress=False)
    for e in r.estimates.values():
        assert near_exact(e, exact, 0.02), e
    assert min(r.acceptance) > 0.3, r.acceptance
    kernel = r.to_dict()["kernel"]
    assert "pilot" in kernel and kernel["step_size_adaptation"].startswith("per_temperature")


# A well-separated bimodal target in 2-d: f = 3 N((-3, -3), 0.4^2 I) + 7 N((3, 3), 0.4^2 I), so
# Z = 10 exactly; the modes are 21 standard deviations apart, and HMC at t = 1 alone never crosses.
MODES, WEIGHTS, SD = np.array([[-3.0, -3.0], [3.0, 3.0]]), np.array([3.0, 7.0]), 0.4


def _bimodal_log_terms(X):
    d2 = ((X[:, None, :] - MODES[None, :, :]) ** 2).sum(axis=2)
    return np.log(WEIGHTS) - d2 / (2 * SD ** 2) - np.log(2 * np.pi * SD ** 2)


def _bimodal_energy(X):
    t = _bimodal_log_terms(X)
    m = t.max(axis=1)
    return -(m + np.log(np.exp(t - m[:, None]).sum(axis=1)))


def _bimodal_grad(X):
    t = _bimodal_log_terms(X)
    w = np.exp(t - t.max(axis=1)[:, None])
    w /= w.sum(axis=1)[:, None]
    return (X[:, None, :] - MODES[None, :, :]).transpose(0, 2, 1) @ w[:, :, None] / SD ** 2


def test_a_well_separated_bimodal_target_visits_both_modes():
    t = logz.Target(2, _bimodal_energy, lambda X: _bimodal_grad(X)[:, :, 0], exact_log_z=np.log(10.0))
    r = logz.pt(t, base=logz.GaussianBase(2, sigma=4.0), step_size=0.2, leapfrog_steps=5, rounds=7, seed=3,
                target_samples=2000, progress=False)
    for e in r.estimates.values():
        assert near_exact(e, np.log(10.0), 0.02), e
        assert "few_round_trips" not in e.flags, e
    assert r.details["pt"]["round_trips"] > 0
    samples = np.array(r.details["pt"]["target_samples"])
    assert samples.shape[1] == 2 and 1000 <= samples.shape[0] <= 2000
    # The target replica holds both modes, near their weights 0.3 and 0.7 (the chains' samples are
    # correlated: a wide band).
    low = np.mean(samples.sum(axis=1) < 0)
    assert 0.15 < low < 0.45, low


def test_reversible_scheme_and_a_fixed_ladder():
    r = logz.pt(logz.models.Ising(4, 4, beta=0.4), num_replicas=5, scheme="reversible", rounds=5, seed=1,
                progress=False)
    assert r.details["pt"]["scheme"] == "reversible"
    assert r.details["pt"]["rounds_num_replicas"] == [5] * 5


@pytest.mark.parametrize("arguments, argument", [
    (dict(rounds=0), "rounds"),
    (dict(num_replicas=1), "num_replicas"),
    (dict(scheme="random"), "scheme"),
    (dict(estimators="rts"), "estimators"),
    (dict(num_chain=3), "num_chain"),
])
def test_bad_arguments_name_themselves(arguments, argument):
    with pytest.raises(logz.InvalidArgument, match=f"logz.pt: {argument}"):
        logz.pt(logz.models.Ising(4, 4), progress=False, **arguments)


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        logz.pt(logz.models.Ising(4, 4), None, "heat_bath")
