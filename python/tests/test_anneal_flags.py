"""The flags annealing puts on its estimates where the SE does not cover the error (issue 45):
frozen_sampler (the kernel's acceptance fell below 0.05 at some temperature) and
reverse_starts_resampled (reverse runs started from forward end states resampled by weight).
Fixed seeds; the flags are checked, not the estimates' errors."""
import json

import numpy as np
import pytest

import logz

WORKS_METHODS = ("ais", "raise", "bar", "lower_bound", "upper_bound")
READ_REVERSE = ("raise", "bar", "upper_bound")


def narrow_gaussian(dim=50, sd=0.1):
    """N(0, sd^2 I): HAIS from N(0, I) with a leapfrog step of 0.2 = 2 sd is past the stability
    limit near t = 1 and accepts almost nothing there; 0.02 accepts most moves."""
    precision = 1.0 / sd ** 2
    return logz.Target(dim, lambda X: 0.5 * precision * (X ** 2).sum(axis=1), lambda X: precision * X,
                       exact_log_z=0.5 * dim * np.log(2 * np.pi * sd ** 2))


def anneal_gaussian(step_size, **kwargs):
    return logz.anneal(narrow_gaussian(), kernel="hais", step_size=step_size, num_steps=200, num_paths=50,
                       seed=3, threads=2, progress=False, **kwargs)


def test_a_too_large_step_freezes_the_sampler_and_every_estimate_says_so():
    r = anneal_gaussian(0.2)
    acceptance = np.asarray(r.acceptance)
    assert np.nanmin(acceptance) < 0.05
    assert sorted(r.estimates) == sorted(WORKS_METHODS)
    for name, e in r.estimates.items():
        assert "frozen_sampler" in e.flags, name


def test_a_tuned_step_is_not_flagged_frozen():
    r = anneal_gaussian(0.02)
    assert np.nanmin(np.asarray(r.acceptance)) > 0.5
    for name, e in r.estimates.items():
        assert "frozen_sampler" not in e.flags, name


def test_a_targets_resampled_reverse_starts_are_flagged_where_reverse_works_are_read():
    r = anneal_gaussian(0.02)  # a Target's reverse runs start from resampled forward end states
    for name, e in r.estimates.items():
        assert ("reverse_starts_resampled" in e.flags) == (name in READ_REVERSE), name
    forward_only = anneal_gaussian(0.02, directions=("forward",))
    assert all("reverse_starts_resampled" not in e.flags for e in forward_only.estimates.values())


def linear_gaussian(reverse_start):
    """The linear generative model of examples/linear-gaussian.toml, whose posterior has exact
    draws (reverse_start "exact"), at a small budget."""
    return {"model": {"type": "linear_generative", "parameters": "random", "data_dim": 8, "latent_dim": 8,
                      "parameter_seed": 1, "sigma_noise": 0.1, "prior": "gaussian"},
            "kernel": {"type": "hais", "step_size": 0.05},
            "schedule": {"type": "sigmoid", "num_steps": 300},
            "run": {"num_paths": 20, "seed": 5, "reverse_start": reverse_start},
            "data": {"source": "model", "seed": 7, "index": 0}}


def test_exact_reverse_starts_are_not_flagged_resampled_ones_are():
    exact = logz.run(linear_gaussian("exact"), progress=False)
    assert all("reverse_starts_resampled" not in e.flags for e in exact.estimates.values())
    resampled = logz.run(linear_gaussian("resampled"), progress=False)
    for name, e in resampled.estimates.items():
        assert ("reverse_starts_resampled" in e.flags) == (name in READ_REVERSE), name


def toml_value(v):
    return json.dumps(v)  # strings, numbers and booleans are written alike in TOML and JSON


def test_the_command_line_flags_the_same(cli, tmp_path):
    config = linear_gaussian("resampled")
    config["kernel"]["step_size"] = 1.0  # far past the posterior's scale (sd ~ 0.1): frozen
    text = "".join(f"[{section}]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in keys.items())
                   for section, keys in config.items())
    (tmp_path / "frozen.toml").write_text(text)
    cli("run", tmp_path / "frozen.toml", "--output", tmp_path / "out.json")
    estimates = json.loads((tmp_path / "out.json").read_text())["estimates"]
    python = logz.run(config, progress=False).estimates
    assert estimates, "no estimates in the JSON"
    for name, e in estimates.items():
        flags = e["diagnostics"]["flags"]
        assert "frozen_sampler" in flags, name
        assert ("reverse_starts_resampled" in flags) == (name in READ_REVERSE), name
        assert flags == python[name].flags


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
