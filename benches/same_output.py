#!/usr/bin/env python3
"""Do two wkrun builds give the same output? Runs every spec in specs/ with both binaries on the same
target, with the same arguments, into two folders, and compares them: every CSV (series and device CSVs)
byte for byte, and results.json as JSON after removing the fields that name the moment or the build
(IGNORED below). Then both binaries read the first build's folder: `wkrun compare` (table and CSV) and
`wkrun report` must print and write the same bytes. See benches/README.md ("same_output.py").

Usage: python3 benches/same_output.py BEFORE AFTER [--target T] [--specs DIR] [--set KEY=VALUE]... [--out DIR]
Exit status 0 when every spec gave the same output with both, 1 otherwise (each difference printed).
Standard library only; builds nothing.
"""
import argparse
import filecmp
import json
import os
import subprocess
import sys
import tempfile
import time

# Fields of results.json that differ between two runs of the same binary, or between two builds of the same
# code, by design, and why. They are removed wherever they occur (any depth) before the documents are
# compared; nothing else is.
IGNORED = {
    # Wall-clock moments (RFC 3339): when the run and each phase started and ended.
    "started_at": "wall clock: when the run or phase started",
    "finished_at": "wall clock: when the run ended",
    "measured_started_at": "wall clock: when a phase's measured part started, after its ramp",
    "series_t0_unix_ns": "wall clock: t = 0 of a phase's series (absent on the simulated drive)",
    # Build identity.
    "wkrun_version": "the version string of the build",
}
# Nothing else is ignored: on the simulated drive every duration, latency and count is in virtual time, the
# same on every run of the same build (the drive's jitter is seeded); the host, target and spec fields are
# the same since both runs use the same machine, target and spec path.


def strip(x):
    """The document without the IGNORED keys, at any depth."""
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in IGNORED}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def diff(a, b, path="", out=None, limit=20):
    """Paths where two JSON values differ (up to `limit`)."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: only in {'after' if k in b else 'before'}")
            else:
                diff(a[k], b[k], f"{path}.{k}", out, limit)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items before, {len(b)} after")
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{path}[{i}]", out, limit)
    elif a != b or type(a) is not type(b):
        out.append(f"{path}: {a!r} before, {b!r} after")
    return out


def run(wkrun, spec, target, sets, out):
    args = [wkrun, "run", spec, "--target", target, "-o", out, "-q"]
    for s in sets:
        args += ["--set", s]
    t0 = time.monotonic()
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, time.monotonic() - t0, p.stderr


def compare(spec, a_dir, b_dir):
    """(CSV files compared, differences) of one spec's two folders."""
    problems = []
    names_a = sorted(f for f in os.listdir(a_dir) if f.endswith(".csv"))
    names_b = sorted(f for f in os.listdir(b_dir) if f.endswith(".csv"))
    if names_a != names_b:
        problems.append(f"CSV files differ: {sorted(set(names_a) ^ set(names_b))}")
    both = sorted(set(names_a) & set(names_b))
    for f in both:
        if not filecmp.cmp(os.path.join(a_dir, f), os.path.join(b_dir, f), shallow=False):
            problems.append(f"{f}: bytes differ")
    docs = []
    for d in (a_dir, b_dir):
        with open(os.path.join(d, "results.json"), encoding="utf-8") as fh:
            docs.append(json.load(fh))
    problems += [f"results.json {d}" for d in diff(strip(docs[0]), strip(docs[1]))]
    return len(both), problems


def readers(before, after, folder, out):
    """Differences between the two binaries' `compare` (table, CSV) and `report` of the same folder."""
    problems = []
    for what in (["compare", folder], ["compare", folder, "--format", "csv"]):
        got = [subprocess.run([b] + what, capture_output=True) for b in (before, after)]
        if any(g.returncode != 0 for g in got):
            problems.append(f"{' '.join(what[:1] + what[2:])}: exit {[g.returncode for g in got]}")
        elif got[0].stdout != got[1].stdout:
            problems.append(f"{' '.join(what[:1] + what[2:])}: output differs")
    reps = [os.path.join(out, f"report-{tag}") for tag in ("before", "after")]
    for b, rep in zip((before, after), reps):
        p = subprocess.run([b, "report", folder, "-o", rep], capture_output=True)
        if p.returncode != 0:
            problems.append(f"report: {b} exited {p.returncode}")
            return problems, 0
    d = filecmp.dircmp(*reps)
    files = sorted(os.listdir(reps[0]))
    changed = d.left_only + d.right_only + d.funny_files
    _, mismatch, errors = filecmp.cmpfiles(*reps, d.common_files, shallow=False)
    changed += mismatch + errors
    problems += [f"report file {f}: differs" for f in sorted(changed)]
    return problems, len(files)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("before", help="the first wkrun binary")
    ap.add_argument("after", help="the second wkrun binary")
    ap.add_argument("--target", default="sim:capacity=2GiB,op=7%")
    ap.add_argument("--specs", default=os.path.join(here, "..", "specs"))
    ap.add_argument("--set", action="append", default=[], help="a --set for both runs (repeatable)")
    ap.add_argument("--out", help="folder for the runs (default: a new temporary folder, kept)")
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="wkrun-same-output-")
    specs = sorted(f for f in os.listdir(a.specs) if f.endswith(".toml"))
    print(f"{len(specs)} specs from {os.path.abspath(a.specs)} on {a.target}"
          f"{''.join(' --set ' + s for s in a.set)}; runs in {out}")
    print(f"results.json: ignored at any depth: {', '.join(sorted(IGNORED))}")
    failed, csvs = 0, 0
    for spec in specs:
        name = spec[:-5]
        path = os.path.join(os.path.abspath(a.specs), spec)
        dirs, took = [], []
        for tag, binary in (("before", a.before), ("after", a.after)):
            d = os.path.join(out, tag, name)
            rc, secs, err = run(binary, path, a.target, a.set, d)
            if rc != 0:
                sys.exit(f"{spec}: {binary} exited {rc}:\n{err[-2000:]}")
            dirs.append(d)
            took.append(secs)
        n, problems = compare(spec, *dirs)
        more, files = readers(a.before, a.after, dirs[0], os.path.join(out, "read", name))
        problems += more
        csvs += n
        verdict = "identical" if not problems else f"{len(problems)} differences"
        print(f"{spec}: {n} CSVs, results.json, compare (table, csv), report ({files} files): {verdict} "
              f"({took[0]:.1f} s, {took[1]:.1f} s)")
        for p in problems:
            print(f"  {p}")
        failed += bool(problems)
    print(f"{len(specs)} specs, {csvs} CSV files compared: "
          f"{'all identical' if not failed else f'{failed} specs differ'}")
    sys.exit(1 if failed else 0)


main()
