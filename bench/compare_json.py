#!/usr/bin/python3
"""Side-by-side table of two sets of Google Benchmark JSON outputs (--benchmark_out), e.g. the
same benchmarks before and after a change:

    bench/compare_json.py BEFORE_DIR AFTER_DIR

Each directory holds NAME.json files; benchmarks are matched by file and name. Prints the real
time of each (the minimum over repetitions when there are several) and after/before: < 1 is
faster. Timings on a shared machine vary by several percent run to run; rerun what looks slower.
"""
import glob
import json
import os
import sys


def load(directory):
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        with open(path) as f:
            data = json.load(f)
        for b in data["benchmarks"]:
            if b.get("run_type") == "aggregate":
                continue
            key = (os.path.basename(path), b["run_name"] if "run_name" in b else b["name"])
            t = b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
            out[key] = min(out.get(key, t), t)
    return out


def fmt(t):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if t >= scale:
            return f"{t / scale:8.3f} {unit}"
    return f"{t / 1e-9:8.3f} ns"


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    before, after = load(sys.argv[1]), load(sys.argv[2])
    print(f"| benchmark | before | after | after/before |\n| --- | ---: | ---: | ---: |")
    for key in sorted(set(before) & set(after)):
        print(f"| {key[1]} | {fmt(before[key])} | {fmt(after[key])} | {after[key] / before[key]:.3f} |")
    for key in sorted(set(before) ^ set(after)):
        print(f"| {key[1]} | {'only before' if key in before else 'only after'} | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
