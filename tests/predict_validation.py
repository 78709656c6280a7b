#!/usr/bin/env python3
"""Validation of `wkrun sim fit` on simulated drives whose parameters the fit is not told (issue 30 item 3).

For each true drive: 15 minutes of write saturation (purge, sequential fill, 4 KiB random writes at QD32),
`wkrun sim fit` on it, then specs/over-provisioning.toml (60 minutes of write saturation at 100, 93, 84, 50
and 25 % of the span, each after a purge and a fill) on the true drive and on the fitted one. Prints a
Markdown table: per drive and span, the steady IOPS (mean of the last 20 minutes, the spec's window), the
time the span was first written, and the worst second of the last 20 minutes, true against predicted.

Usage (from the project root): python3 tests/predict_validation.py target/release/wkrun
"""
import csv, json, os, subprocess, sys, tempfile, time

WKRUN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/wkrun")
DRIVES = [
    "sim:capacity=1GiB,op=7%,dies=1",
    "sim:capacity=1GiB,op=12%,dies=2,program_time=1200us",
    "sim:capacity=1GiB,op=28%,dies=4,program_time=2000us,jitter=10%",
    "sim:capacity=1GiB,op=15%,dies=2,gc=deferred,jitter=50%",
    "sim:capacity=1GiB,op=20%,dies=8,program_time=3000us,gc=deferred,gc_pace=90%",
]
SHORT = """format = 1
[spec]
name = "wsat-15min"
version = "1"
[[phase]]
name = "purge"
kind = "erase"
[[phase]]
name = "fill"
kind = "fill"
block_size = "128KiB"
queue_depth = 4
[[phase]]
name = "wsat"
kind = "workload"
pattern = "random"
block_size = "4KiB"
queue_depth = 32
read_percent = 0
duration = "900s"
"""


def run(*args):
    return subprocess.run([WKRUN, *args], check=True, capture_output=True, text=True)


def spans(out):
    """Per random-write phase: (span %, steady IOPS, seconds to write the span once, worst second)."""
    r = json.load(open(os.path.join(out, "results.json")))
    cap = r["target"]["capacity_bytes"]
    rows_of = []
    for p in r["phases"]:
        if p["kind"] != "workload":
            continue
        rows = [x for x in csv.DictReader(open(os.path.join(out, p["series_csv"]))) if x["partial"] == "0"]
        iops = [float(x["write_ops"]) / float(x["interval_s"]) for x in rows]
        last = iops[-1200:]
        acc, once = 0.0, None
        for x in rows:
            acc += float(x["write_bytes"])
            if acc >= p["params"]["span_bytes"]:
                once = float(x["t_s"])
                break
        rows_of.append((round(100 * p["params"]["span_bytes"] / cap), sum(last) / len(last), once, min(last)))
    return rows_of


def pct(a, b):
    return "—" if a is None or b is None else f"{100 * (b - a) / a:+.1f} %"


def main():
    print("| true drive | fitted drive | span | steady IOPS true / predicted | error | span written once (s) true / predicted | error | worst second true / predicted |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        short = os.path.join(tmp, "short.toml")
        open(short, "w").write(SHORT)
        for i, truth in enumerate(DRIVES):
            s = os.path.join(tmp, f"short{i}")
            run(short, "--target", truth, "-q", "-o", s)
            t0 = time.time()
            fitted = run("sim", "fit", s).stdout.strip().splitlines()[-1]
            fit_s = time.time() - t0
            res = {}
            for name, tgt in (("true", truth), ("fitted", fitted)):
                out = os.path.join(tmp, f"op{i}{name}")
                run("specs/over-provisioning.toml", "--target", tgt, "-q", "-o", out)
                res[name] = spans(out)
            for (span, a, ta, wa), (_, b, tb, wb) in zip(res["true"], res["fitted"]):
                print(f"| `{truth}` | `{fitted}` (fit {fit_s:.0f} s) | {span} % | {a:.0f} / {b:.0f} | {pct(a, b)} | "
                      f"{ta if ta is None else f'{ta:.0f}'} / {tb if tb is None else f'{tb:.0f}'} | {pct(ta, tb)} | {wa:.0f} / {wb:.0f} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
