"""logz.estimate's docstring is generated from the estimator registry: it names every option of
every estimator with its default and every works estimator, as `logz list --json` has them (the
same check as tests/cli/estimator_options_test.cpp makes of the flags of `logz estimate`)."""
import json

import logz


def test_every_option_and_works_estimator_is_in_the_docstring(cli):
    registry = json.loads(cli("list", "--json"))
    doc = logz.estimate.__doc__
    options = {name for e in registry["estimators"].values() for name in e["options"]}
    assert len(options) >= 3  # histogram_bins, posterior_draws, posterior_burn_in at least
    for model in registry["models"].values():
        keys = model["keys"].get("estimators")
        if keys is None:
            continue
        for name in options:
            assert f"{name} : int, default {keys[name]['default']}" in doc, name
    for name, e in registry["estimators"].items():
        if e["family"] == "works":
            assert f'"{name}"' in doc, name
