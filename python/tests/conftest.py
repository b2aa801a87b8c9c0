"""Shared fixtures: the command-line tool the Python results are checked against."""
import os
import subprocess

import pytest

SOURCE_DIR = os.environ.get("LOGZ_SOURCE_DIR",
                            os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@pytest.fixture(scope="session")
def cli():
    """Runs `logz ARGS...` and returns its stdout; fails the test on a non-zero exit."""
    path = os.environ.get("LOGZ_CLI", os.path.join(SOURCE_DIR, "build", "logz"))
    if not os.path.exists(path):
        pytest.fail(f"the logz command-line tool is not at {path} (set LOGZ_CLI)")

    def run(*args):
        env = dict(os.environ)
        if "asan" in env.get("LD_PRELOAD", ""):  # for a sanitized module; the tool links its own runtime
            del env["LD_PRELOAD"]
        done = subprocess.run([path, *map(str, args)], capture_output=True, text=True, env=env)
        assert done.returncode == 0, f"logz {' '.join(map(str, args))}: {done.stderr}"
        return done.stdout

    return run


@pytest.fixture(scope="session")
def source_dir():
    return SOURCE_DIR


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "longer: runs code that other tests run too, at a size that takes a sanitized "
                   "build a minute or more; left out under sanitizers (python/CMakeLists.txt)")
    # pymbar 3 (Debian's python3-pymbar) still uses numpy.matrix.
    config.addinivalue_line("filterwarnings", "ignore:the matrix subclass:PendingDeprecationWarning")
