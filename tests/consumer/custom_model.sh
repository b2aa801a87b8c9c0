#!/usr/bin/env bash
# examples/cpp as a user builds it: logz installed into a temporary prefix, the example project
# configured against it with find_package(logz), custom_model run, and its JSON checked: the
# schema of `logz run --output` and BAR within 5 standard errors of the exact log Z.
set -euo pipefail
build_dir=$1 source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S "$source_dir/examples/cpp" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/custom_model" --output "$work/result.json" --paths 200 --steps 1000 --seed 3
/usr/bin/python3 - "$work/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
exact = r["reference"]["log_z"]
for method in ("ais", "raise", "bar", "lower_bound", "upper_bound"):
    assert r["estimates"][method]["log_z"] is not None, method
bar = r["estimates"]["bar"]
assert bar["std_error"] > 0, bar
error = abs(bar["log_z"] - exact)
print(f"BAR {bar['log_z']:.4f} +- {bar['std_error']:.4f}, exact {exact:.4f}: {error / bar['std_error']:.1f} SE")
sys.exit(0 if error <= 5 * bar["std_error"] else 1)
PY
