"""The Python examples (examples/python/) run as a user runs them and print their answers; each
takes a few seconds."""
import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "examples", "python")


@pytest.mark.parametrize("name, printed", [
    ("ising.py", "exact log Z"),
    ("rbm_test_loglik.py", "test log-likelihood"),
    ("bayes_factor.py", "log Bayes factor M1 vs M2"),
    ("regression_smc.py", "log evidence"),
])
def test_example_runs(name, printed):
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)], capture_output=True, text=True,
                          timeout=120, env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    assert printed in done.stdout
