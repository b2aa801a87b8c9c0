#!/usr/bin/env bash
# `pip install .` as a user runs it (issue 43): into a fresh venv that sees Debian's numpy, from
# the source tree, offline (the build backend needs nothing from PyPI), with the build tree $2
# reused; then `import logz` from the venv (not the build tree) and one estimate through it.
set -euo pipefail
source_dir=$1
build_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --quiet --no-index --config-settings "build-dir=$build_dir" "$source_dir"
cd "$work"
"$work/venv/bin/python" - "$work/venv" <<'PY'
import sys
import numpy as np
import logz
import logz.compat.pymbar
assert logz.__file__.startswith(sys.argv[1]), logz.__file__
e = logz.bar(np.array([0.1, -0.2, 0.3]), np.array([-0.1, 0.2, 0.0]))
assert np.isfinite(e.log_z), e
print("logz", logz.__version__, "pip-installed at", logz.__file__, e)
PY
"$work/venv/bin/pip" uninstall --quiet --yes logz
