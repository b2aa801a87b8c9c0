"""logz.smc on a logz.Target: adaptive tempered SMC from a base fitted to a pilot run, right
within its error bar on problems with exact log Z, the same bits for any thread count, and
errors naming the argument."""
import math

import numpy as np
import pytest

import logz


def regression(d, n=100, seed=4501):
    """Bayesian linear regression with its N(0, I) prior in the energy: log Z = log evidence."""
    rng = np.random.default_rng(seed + d)
    phi = rng.standard_normal((n, d))
    y = phi @ rng.normal(size=d) + rng.normal(size=n)
    cov = np.eye(n) + phi @ phi.T
    exact = -0.5 * (n * math.log(2 * math.pi) + np.linalg.slogdet(cov)[1] + y @ np.linalg.solve(cov, y))
    energy = lambda X: (0.5 * ((y[None, :] - X @ phi.T) ** 2).sum(axis=1)  # noqa: E731
                        + 0.5 * (X ** 2).sum(axis=1) + 0.5 * (n + d) * math.log(2 * math.pi))
    grad = lambda X: -(y[None, :] - X @ phi.T) @ phi + X  # noqa: E731
    return logz.Target(d, energy, grad, exact_log_z=exact)


def within(e, exact, allowance=0.02):
    # z = 5 on the stated SE, plus a bias allowance for SMC's O(1/N) bias.
    assert math.isfinite(e.std_error) and e.std_error > 0, e
    assert abs(e.log_z - exact) <= 5 * e.std_error + allowance, (e, exact)


def test_regression_d10_from_a_fitted_base():
    t = regression(10)
    r = logz.smc(t, seed=1, progress=False)
    e = r.estimates["smc"]
    within(e, t.exact_log_z)
    assert e.flags == [] and e.std_error < 0.05
    d = r.to_dict()
    assert d["model"]["base"]["type"] == "fitted" and d["kernel"]["pilot_base"]["particles"] == 256
    assert d["budget"]["pilot gradients"] > 0  # the pilot's cost is counted
    # The pilot is a second, independent estimate: within its own error of the exact value.
    assert abs(d["kernel"]["pilot_base"]["log_z"] - t.exact_log_z) <= 5 * d["kernel"]["pilot_base"]["std_error"]


def test_same_bits_for_any_thread_count():
    t = regression(4)
    a = logz.smc(t, num_particles=200, seed=3, threads=1, progress=False).estimates["smc"]
    b = logz.smc(t, num_particles=200, seed=3, threads=2, progress=False).estimates["smc"]
    assert (a.log_z, a.std_error) == (b.log_z, b.std_error)
    # threads=None: [smc] choose_threads, the thread count chosen by timing; the same bits.
    chosen = logz.smc(t, num_particles=200, seed=3, progress=False)
    assert chosen.to_dict()["config"]["smc"]["choose_threads"] is True
    c = chosen.estimates["smc"]
    assert (a.log_z, a.std_error) == (c.log_z, c.std_error)


def test_inner_leapfrog_steps_call_grad_alone():
    # energy and grad as two functions: the leapfrog's inner steps call grad alone (their energy
    # is never read), with the same trajectories, so the same bits as energy_and_grad's.
    t = regression(4)
    calls = {"energy": 0, "grad": 0}

    def counted(name, f):
        def g(X):
            calls[name] += 1
            return f(X)
        return g

    two = logz.Target(4, counted("energy", t.energy), counted("grad", t.grad))
    one = logz.Target(4, t.energy, energy_and_grad=lambda X: (t.energy(X), t.grad(X)))
    a = logz.smc(two, num_particles=200, seed=3, threads=1, progress=False)
    b = logz.smc(one, num_particles=200, seed=3, threads=1, progress=False)
    assert (a.estimates["smc"].log_z, a.estimates["smc"].std_error) == \
        (b.estimates["smc"].log_z, b.estimates["smc"].std_error)
    assert calls["energy"] < 0.7 * calls["grad"], calls
    assert a.to_dict()["budget"]["gradients alone"] > 0


def test_a_target_far_from_the_default_base():
    """N(20, 0.05^2 I) in d = 5: the pilot finds it from N(0, I), and the run from the fitted
    base is right with a small error bar; without the pilot, the same particles are worse off."""
    d, mu, sd = 5, 20.0, 0.05
    exact = d * (0.5 * math.log(2 * math.pi) + math.log(sd))
    t = logz.Target(d, lambda X: 0.5 * (((X - mu) / sd) ** 2).sum(axis=1), lambda X: (X - mu) / sd ** 2,
                    exact_log_z=exact)
    fitted = logz.smc(t, num_particles=500, seed=2, progress=False).estimates["smc"]
    within(fitted, exact)
    plain = logz.smc(t, num_particles=500, seed=2, pilot_base=False, progress=False).estimates["smc"]
    within(plain, exact, allowance=0.1)
    assert fitted.std_error < plain.std_error


def test_without_a_gradient_the_moves_are_random_walk():
    t = logz.Target(3, lambda X: 0.5 * (X ** 2).sum(axis=1) / 4, exact_log_z=1.5 * math.log(2 * math.pi * 4))
    r = logz.smc(t, num_particles=400, seed=5, progress=False)
    assert r.to_dict()["kernel"]["move"] == "random_walk"
    within(r.estimates["smc"], t.exact_log_z)


@pytest.mark.parametrize("call, message", [
    (lambda t: logz.smc(t, num_particles=1), "logz.smc: num_particles: expected"),
    (lambda t: logz.smc(t, pilot_widening=0.5), "logz.smc: pilot_widening: expected"),
    (lambda t: logz.smc(t, pilot_base=False, pilot_particles=100), "logz.smc: pilot_particles: expected no value"),
])
def test_bad_arguments_are_named(call, message):
    t = logz.Target(2, lambda X: 0.5 * (X ** 2).sum(axis=1), lambda X: X)
    with pytest.raises(logz.InvalidArgument) as info:
        call(t)
    assert message in str(info.value)
