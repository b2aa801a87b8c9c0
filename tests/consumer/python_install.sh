#!/usr/bin/env bash
# The Python package as installed: `cmake --install` into a temporary prefix, then `import logz`
# from the prefix's site folder (not the build tree) and one estimate through it. The folder
# (the install dir, $2, less its final logz) must be one Debian's python3 reads under /usr/local.
set -euo pipefail
build_dir=$1
site=${2%/logz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cd "$work"
/usr/bin/python3 -c "import sys; assert '/usr/local/$site' in sys.path, ('/usr/local/$site', sys.path)"
PYTHONPATH="$work/prefix/$site" /usr/bin/python3 - "$work/prefix" <<'PY'
import sys
import logz
assert logz.__file__.startswith(sys.argv[1]), logz.__file__
e = logz.ais([0.0, 0.0, 0.0])
assert e.log_z == 0.0, e
print("logz", logz.__version__, "from", logz.__file__)
PY
