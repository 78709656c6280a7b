#!/usr/bin/env python3
"""Instructions per I/O of wkrun's own (user-space) code, counted by valgrind's callgrind: repeatable on a
noisy machine, unlike IOPS. See benches/README.md ("instructions.py").

For each case it runs the same workload twice under callgrind, with N and 3N ops (op-bounded: `size`), and
divides the difference of the instruction counts by the difference of the ops (2N): start-up, spec checking
and result writing cancel out. It prints the total per I/O and the functions that cost the most per I/O
(exclusive counts, inlined code attributed to the function it was inlined into).

Usage: python3 benches/instructions.py [--wkrun PATH] [--cases LIST] [--ops N] [--top K] [--no-record]
                                      [--interval DURATION]
--interval sets the phases' series interval (default: the spec default, 1 s). Work done once per row
(closing an interval: adding, clearing and writing its latency histograms) is counted per I/O here too,
and under valgrind, which completes I/Os 20 to 100 times slower than natively, a row holds that many
times fewer I/Os than at full speed: `--interval 1h` (no row closes during the runs) counts the I/O path
alone.
Needs valgrind (apt-get install valgrind); installs nothing. The io_uring, libaio and psync cases write a
64 MiB file on /dev/shm (created and deleted here); the null cases touch no file.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# name: (engine, queue depth, read percent, target on /dev/shm?, pattern[, workers])
CASES = {
    "null-qd32-randwrite": ("null", 32, 0, False, "random"),
    "null-qd32-randread": ("null", 32, 100, False, "random"),
    "null-qd32-seqwrite": ("null", 32, 0, False, "sequential"),
    "null-qd1-randwrite": ("null", 1, 0, False, "random"),
    # workers: the same total of ops, split over 2 workers (their own threads, op streams and engines)
    "null-qd32-randread-w2": ("null", 32, 100, False, "random", 2),
    "null-qd32-randwrite-w2": ("null", 32, 0, False, "random", 2),
    "shm-io_uring-qd32-randwrite": ("io_uring", 32, 0, True, "random"),
    "shm-libaio-qd32-randwrite": ("libaio", 32, 0, True, "random"),
    "shm-psync-qd1-randwrite": ("psync", 1, 0, True, "random"),
}
SPAN = 64 << 20
BLOCK = 4096


def spec_text(engine, qd, rp, pattern, ops, path, workers=1, interval=None):
    every = f'interval = "{interval}"\n' if interval else ""
    return f"""format = 1
[spec]
name = "instructions"
version = "1"
[target]
path = "{path}"
size = "{SPAN}"
[defaults]
engine = "{engine}"
direct = false
[[phase]]
name = "w"
kind = "workload"
pattern = "{pattern}"
block_size = "4KiB"
queue_depth = {qd}
workers = {workers}
read_percent = {rp}
size = "{ops * BLOCK}"
{every}"""


def callgrind(wkrun, tmp, engine, qd, rp, pattern, ops, path, env, workers=1, interval=None):
    """Runs one op-bounded run under callgrind; returns {function: instructions} and the total."""
    tag = f"{engine}-{qd}-{rp}-{pattern}-{ops}-w{workers}"
    spec = os.path.join(tmp, f"{tag}.toml")
    with open(spec, "w") as f:
        f.write(spec_text(engine, qd, rp, pattern, ops, path, workers, interval))
    out = os.path.join(tmp, f"{tag}.cg")
    res = os.path.join(tmp, f"{tag}-results")
    p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", wkrun, spec,
                        "-o", res, "-q"], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"wkrun under callgrind failed (exit {p.returncode}):\n{p.stderr[-2000:]}")
    a = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", "--auto=no", out],
                       capture_output=True, text=True, check=True).stdout
    funcs, total = {}, 0
    for line in a.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*?)(?: \[[^\]]*\])?$", line)
        if not m:
            continue
        n, what = int(m.group(1).replace(",", "")), m.group(2)
        if what.startswith("PROGRAM TOTALS"):
            total = n
            continue
        fn = what.split(":", 1)[1] if ":" in what else what
        funcs[fn] = funcs.get(fn, 0) + n
    return funcs, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--wkrun", default=os.path.join(here, "..", "target", "release", "wkrun"))
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--ops", type=int, default=32768, help="N: the runs do N and 3N ops")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--no-record", action="store_true", help="set WKRUN_BENCH_NO_RECORD=1")
    ap.add_argument("--interval", help="the phases' series interval (\"1h\": no row closes: the I/O path alone)")
    a = ap.parse_args()
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        sys.exit("valgrind is not installed (apt-get install valgrind); this script installs nothing")
    if not os.access(a.wkrun, os.X_OK):
        sys.exit(f"no wkrun binary at {a.wkrun} (cargo build --release)")
    env = dict(os.environ)
    env.pop("WKRUN_BENCH_NO_RECORD", None)
    if a.no_record:
        env["WKRUN_BENCH_NO_RECORD"] = "1"
    tmp = tempfile.mkdtemp(prefix="wkrun-instr-")
    shm = None
    try:
        summary = []
        for name in a.cases.split(","):
            if name not in CASES:
                sys.exit(f"unknown case {name!r}; cases: {', '.join(CASES)}")
            engine, qd, rp, on_shm, pattern, *rest = CASES[name]
            workers = rest[0] if rest else 1
            if on_shm and shm is None:
                fd, shm = tempfile.mkstemp(dir="/dev/shm", prefix="wkrun-instr.", suffix=".img")
                os.close(fd)
                with open(shm, "wb") as f:  # allocated up front: every run overwrites allocated pages
                    f.write(os.urandom(SPAN))
            path = shm if on_shm else os.path.join(tmp, "never-created.img")
            f1, t1 = callgrind(a.wkrun, tmp, engine, qd, rp, pattern, a.ops, path, env, workers, a.interval)
            f3, t3 = callgrind(a.wkrun, tmp, engine, qd, rp, pattern, 3 * a.ops, path, env, workers,
                               a.interval)
            d = 2 * a.ops
            per = (t3 - t1) / d
            summary.append((name, per))
            print(f"\n{name}: {per:.0f} instructions per I/O ({a.ops} and {3 * a.ops} ops"
                  f"{', recording off' if a.no_record else ''}"
                  f"{f', interval {a.interval}' if a.interval else ''})")
            rows = sorted(((f3.get(k, 0) - f1.get(k, 0)) / d, k) for k in set(f1) | set(f3))
            for v, k in rows[::-1][: a.top]:
                print(f"  {v:8.1f}  {k[:120]}")
        print("\n| case | instructions per I/O |\n|---|---:|")
        for name, per in summary:
            print(f"| {name} | {per:.0f} |")
    finally:
        if shm:
            os.unlink(shm)
        shutil.rmtree(tmp, ignore_errors=True)


main()
