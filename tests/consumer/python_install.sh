#!/usr/bin/env bash
# The Python package as installed: `cmake --install` into a temporary prefix, then `import logz`
# from the prefix's site folder (not the build tree) and one estimate through it.
set -euo pipefail
build_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cd "$work"
PYTHONPATH="$work/prefix/lib/python3/dist-packages" /usr/bin/python3 - "$work/prefix" <<'PY'
import sys
import logz
assert logz.__file__.startswith(sys.argv[1]), logz.__file__
e = logz.ais([0.0, 0.0, 0.0])
assert e.log_z == 0.0, e
print("logz", logz.__version__, "from", logz.__file__)
PY
