#!/usr/bin/env python3
"""wkrun against fio, side by side, on the same targets, in the same run.

For every case (target x engine x queue depth x workload), runs fio and wkrun alternately on identical
parameters (same block size, read share, offset order, span, data kind and seed), for several rounds, and
prints a table of IOPS (median, min, max) and CPU time per I/O for both tools, with the ratios wkrun / fio
and the goal of issue 6 for each row. `rec@` cases compare wkrun with itself, per-I/O recording on
against off (WKRUN_BENCH_NO_RECORD=1), to measure what measuring costs.

Standard library only. Installs nothing and builds nothing: build wkrun first
(`cargo build --release`), install fio yourself (`apt-get install fio` on Debian/Ubuntu).

    cargo build --release && sudo python3 benches/vs_fio.py

See benches/README.md for the options, how to read the table, and the caveats.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

# The rows of issue 6's table, then the cost of recording (wkrun with per-I/O recording on vs off).
DEFAULT_CASES = ("shm:psync:1,shm:io_uring:32,zram:libaio:32,zram:io_uring:32,zram:io_uring:32:randrw70,"
                 "zram:libaio:8:write:128k,none:null:32,none:null:32:randread,"
                 "rec@none:null:32,rec@shm:io_uring:32,rec@shm:psync:1")
BLOCK = 4096
NO_RECORD_ENV = "WKRUN_BENCH_NO_RECORD"
TARGETS = ("none", "shm", "zram")
ENGINES = ("psync", "libaio", "io_uring", "null")


@dataclass(frozen=True)
class Case:
    """One row: where, how, what. `vs` is "fio", or "norecord" for wkrun with recording off."""
    target: str  # none | shm | zram
    engine: str
    qd: int
    rw: str  # randwrite | randread | randrwN (N % reads) | write (sequential)
    bs: int
    vs: str = "fio"
    workers: int = 0  # wkrun `workers`, fio `--numjobs`, each with `qd` I/Os in flight; 0: not given (one)

    @property
    def read_percent(self) -> int:
        if self.rw == "randread":
            return 100
        if self.rw.startswith("randrw"):
            return int(self.rw[6:])
        return 0

    @property
    def sequential(self) -> bool:
        return self.rw == "write"

    @property
    def label(self) -> str:
        bs = f"{self.bs >> 10}k" if self.bs % 1024 == 0 else f"{self.bs}B"
        return f"{self.rw} {bs}" + (f" w{self.workers}" if self.workers else "")

    @property
    def tag(self) -> str:
        return f"{'rec-' if self.vs == 'norecord' else ''}{self.target}-{self.engine}-qd{self.qd}-{self.rw}-{self.bs}" + (f"-w{self.workers}" if self.workers else "")

    def goal(self) -> tuple[float, bool]:
        """Issue 6: the minimum IOPS ratio wkrun / B, and whether CPU per I/O must not exceed B's."""
        if self.vs == "norecord":
            return 0.98, False  # recording costs at most 2 % of IOPS
        if self.target == "shm" and self.engine == "io_uring":
            return 1.1, False
        return 1.0, self.target == "zram" and self.rw == "randwrite" and self.qd >= 32


# ---------------------------------------------------------------------------------------------- helpers


def die(msg: str, code: int = 2) -> None:
    print(f"vs_fio: error: {msg}", file=sys.stderr)
    sys.exit(code)


def note(msg: str) -> None:
    print(f"vs_fio: {msg}", file=sys.stderr, flush=True)


def parse_size(s: str) -> int:
    m = re.fullmatch(r"\s*(\d+)\s*([KMGT]i?B?|[kmgt]|B)?\s*", s)
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {s!r}: use e.g. 1GiB, 512MiB, 1G")
    n = int(m.group(1))
    unit = (m.group(2) or "B").upper().rstrip("B").rstrip("I")
    mult = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[unit]
    v = n * mult
    if v < BLOCK or v % BLOCK:
        raise argparse.ArgumentTypeError(f"size {s!r} must be a positive multiple of 4096 bytes")
    return v


def parse_cases(s: str) -> list[Case]:
    """`[rec@]TARGET:ENGINE:QD[:RW[:BS]][:wN]`, comma-separated. RW: randwrite (default), randread, randrwN (N %
    reads), write (sequential); BS: e.g. 4k (default), 128k; wN: N workers (wkrun `workers = N`, fio `--numjobs=N
    --group_reporting`), each with QD I/Os in flight. `rec@`: wkrun with recording on vs off instead of fio."""
    out = []
    for item in s.split(","):
        item = item.strip()
        if not item:
            continue
        vs = "fio"
        if item.startswith("rec@"):
            vs, item = "norecord", item[4:]
        parts = item.split(":")
        workers = 0
        if len(parts) > 3 and re.fullmatch(r"w\d{1,3}", parts[-1]):
            workers = int(parts.pop()[1:])
            if not 1 <= workers <= 256:
                raise argparse.ArgumentTypeError(f"workers {workers} outside 1..256 in {item!r}")
        if len(parts) < 3 or len(parts) > 5:
            raise argparse.ArgumentTypeError(f"case {item!r}: use [rec@]TARGET:ENGINE:QD[:RW[:BS]], "
                                              f"e.g. shm:io_uring:32 or zram:io_uring:32:randrw70")
        target, eng, qd = parts[:3]
        rw = parts[3] if len(parts) > 3 else "randwrite"
        bs_text = parts[4] if len(parts) > 4 else "4k"
        if target not in TARGETS:
            raise argparse.ArgumentTypeError(f"unknown target {target!r} in {item!r} ({', '.join(TARGETS)})")
        if eng not in ENGINES:
            raise argparse.ArgumentTypeError(f"unknown engine {eng!r} in {item!r} ({', '.join(ENGINES)})")
        if (eng == "null") != (target == "none"):
            raise argparse.ArgumentTypeError(f"{item!r}: the null engine runs on target none, and only it")
        try:
            q = int(qd)
        except ValueError:
            raise argparse.ArgumentTypeError(f"bad queue depth in {item!r}") from None
        if not 1 <= q <= 1024:
            raise argparse.ArgumentTypeError(f"queue depth {q} outside 1..1024 in {item!r}")
        m = re.fullmatch(r"randrw(\d{1,2})", rw)
        if rw not in ("randwrite", "randread", "write") and not m:
            raise argparse.ArgumentTypeError(f"workload {rw!r} in {item!r}: randwrite, randread, randrwN, write")
        bs = parse_size(bs_text)
        if workers and eng == "psync" and q > 1:
            raise argparse.ArgumentTypeError(f"{item!r}: psync QD > 1 already runs QD jobs; use wN with QD 1")
        out.append(Case(target, eng, q, rw, bs, vs, workers))
    if not out:
        raise argparse.ArgumentTypeError("no cases")
    return out


def parse_data(s: str) -> str:
    if s in ("random", "zeros") or re.fullmatch(r"compressible:(\d{1,2}|100)%", s):
        return s
    raise argparse.ArgumentTypeError(f"data {s!r}: use random, zeros or compressible:N%")


def fio_data_args(data: str) -> list[str]:
    """fio options giving the same kind of write data as wkrun's `data`."""
    if data == "random":
        # fresh pseudo-random bytes for every I/O, as wkrun's "random" (unique blocks)
        return ["--refill_buffers"]
    if data == "zeros":
        return ["--zero_buffers"]
    pct = int(data.split(":")[1].rstrip("%"))
    # wkrun: in each 512-byte chunk about N % is filler; fio: buffer_compress_percentage per chunk
    return ["--refill_buffers", f"--buffer_compress_percentage={pct}", "--buffer_compress_chunk=512"]


def human(n: float) -> str:
    if n >= 1e6:
        return f"{n / 1e6:.2f}M"
    if n >= 1e3:
        return f"{n / 1e3:.1f}k"
    return f"{n:.0f}"


def machine_info() -> dict:
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "kernel": platform.release(), "cpu_model": model,
            "hostname": platform.node()}


def loadavg() -> float:
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")


def run_capture(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


# ---------------------------------------------------------------------------------------------- targets


@dataclass
class Target:
    name: str  # "shm" or "zram"
    path: str
    direct: bool
    span: int
    is_block: bool
    cleanup: list = field(default_factory=list)  # callables, run in reverse order
    info: str = ""


def prefill(path: str, size: int, is_block: bool) -> None:
    """Writes the whole span once with incompressible bytes, so that both tools overwrite allocated space
    (tmpfs pages, zram slots) from their first round on, instead of the first run paying for allocation."""
    chunk = 1 << 20
    flags = os.O_WRONLY | (0 if is_block else os.O_CREAT | os.O_EXCL)
    fd = os.open(path, flags, 0o600)
    try:
        done = 0
        while done < size:
            n = min(chunk, size - done)
            buf = os.urandom(n)
            w = 0
            while w < n:
                w += os.pwrite(fd, buf[w:], done + w)
            done += n
        os.fsync(fd)
    finally:
        os.close(fd)


def setup_shm(args) -> Target | None:
    path = args.shm_path
    d = os.path.dirname(path) or "."
    if not os.path.isdir(d):
        note(f"SKIP shm target: {d} does not exist")
        return None
    if os.path.exists(path):
        note(f"SKIP shm target: {path} already exists; remove it or pass --shm-path (the harness creates "
             f"and deletes its own file)")
        return None
    st = os.statvfs(d)
    free = st.f_bavail * st.f_frsize
    if free < args.size + (64 << 20):
        note(f"SKIP shm target: {d} has {free >> 20} MiB free, needs {args.size >> 20} MiB (--size)")
        return None
    t = Target("shm", path, direct=False, span=args.size, is_block=False,
               info=f"file {path}, {args.size >> 20} MiB, buffered (direct = false)")
    t.cleanup.append(lambda: os.path.exists(path) and os.unlink(path))
    note(f"shm: creating {path} ({args.size >> 20} MiB, written once with random bytes)")
    try:
        prefill(path, args.size, is_block=False)
    except OSError as e:
        note(f"SKIP shm target: cannot write {path}: {e}")
        run_cleanup(t)
        return None
    except BaseException:  # Ctrl-C during the prefill: delete the file
        run_cleanup(t)
        raise
    return t


def setup_none(args, work: str) -> Target:
    """The null engine's target: nothing. wkrun gets a path that does not exist and the span as
    --target-size (a plan on the null engine alone creates and opens nothing); fio's null ioengine gets
    --size."""
    path = os.path.join(work, "null-target-never-created.img")
    return Target("none", path, direct=False, span=args.size, is_block=False,
                  info=f"no target: the null engine (wkrun engine = \"null\", fio --ioengine=null), "
                       f"{args.size >> 20} MiB span")


def in_use_reason(dev: str) -> str | None:
    name = os.path.basename(dev)
    try:
        with open("/proc/swaps") as f:
            if any(line.split()[0] == dev for line in f.read().splitlines()[1:] if line.split()):
                return f"{dev} is used as swap"
    except OSError:
        pass
    try:
        with open("/proc/mounts") as f:
            for line in f:
                if line.split()[0] == dev:
                    return f"{dev} is mounted on {line.split()[1]}"
    except OSError:
        pass
    holders = f"/sys/block/{name}/holders"
    if os.path.isdir(holders) and os.listdir(holders):
        return f"{dev} is held by {', '.join(os.listdir(holders))}"
    return None


def sysfs_read(p: str) -> str:
    with open(p) as f:
        return f.read().strip()


def sysfs_write(p: str, v: str) -> None:
    with open(p, "w") as f:
        f.write(v)


def setup_zram(args) -> Target | None:
    dev = args.zram_device
    name = os.path.basename(dev)
    sysd = f"/sys/block/{name}"
    if os.geteuid() != 0:
        note("SKIP zram target: needs root (run with sudo)")
        return None
    if not os.path.isdir(sysd) or not os.path.exists(dev):
        note(f"SKIP zram target: {dev} not available ({sysd} missing; `modprobe zram` creates zram0)")
        return None
    reason = in_use_reason(dev)
    if reason:
        note(f"SKIP zram target: busy: {reason}")
        return None
    try:
        disksize = int(sysfs_read(f"{sysd}/disksize"))
    except (OSError, ValueError) as e:
        note(f"SKIP zram target: cannot read {sysd}/disksize: {e}")
        return None
    t = Target("zram", dev, direct=True, span=args.size, is_block=True)
    if disksize == 0:
        try:
            sysfs_write(f"{sysd}/disksize", str(args.size))
        except OSError as e:
            note(f"SKIP zram target: cannot set {sysd}/disksize to {args.size}: {e}")
            return None

        def reset():
            for i in range(20):
                try:
                    sysfs_write(f"{sysd}/reset", "1")
                    note(f"zram: reset {dev}")
                    return
                except OSError as e:
                    if e.errno != errno.EBUSY or i == 19:
                        note(f"WARNING: could not reset {dev}: {e}; run `echo 1 > {sysd}/reset`")
                        return
                    time.sleep(0.25)

        t.cleanup.append(reset)
        made = "set disksize, reset afterwards"
    elif args.zram_reuse:
        if disksize < args.size:
            note(f"SKIP zram target: {dev} has disksize {disksize}, less than --size {args.size}")
            return None
        made = f"already configured (disksize {disksize}), --zram-reuse: left configured afterwards"
    else:
        note(f"SKIP zram target: {dev} is already configured (disksize {disksize}) and may hold data; "
             f"reset it (`echo 1 > {sysd}/reset`) or pass --zram-reuse to write over it")
        return None
    # The kernel's own word on exclusive use.
    try:
        fd = os.open(dev, os.O_RDONLY | os.O_EXCL)
        os.close(fd)
    except OSError as e:
        note(f"SKIP zram target: {dev} busy (O_EXCL open: {e})")
        run_cleanup(t)
        return None
    try:
        comp = sysfs_read(f"{sysd}/comp_algorithm")
        alg = re.search(r"\[(\S+)\]", comp)
        comp = alg.group(1) if alg else comp
    except OSError:
        comp = "?"
    t.info = f"block device {dev}, {args.size >> 20} MiB span, O_DIRECT, compressor {comp}; {made}"
    note(f"zram: writing {dev} once with random bytes ({args.size >> 20} MiB)")
    try:
        prefill(dev, args.size, is_block=True)
    except OSError as e:
        note(f"SKIP zram target: cannot write {dev}: {e}")
        run_cleanup(t)
        return None
    except BaseException:  # Ctrl-C during the prefill: reset the device
        run_cleanup(t)
        raise
    return t


def zram_mm_stat(dev: str) -> str:
    try:
        f = sysfs_read(f"/sys/block/{os.path.basename(dev)}/mm_stat").split()
        orig, compr = int(f[0]), int(f[1])
        return f"orig_data_size {orig >> 20} MiB, compr_data_size {compr >> 20} MiB" + (
            f" (ratio {orig / compr:.2f})" if compr else "")
    except (OSError, ValueError, IndexError):
        return "?"


def wait_released(dev: str, limit_s: float = 10.0) -> float:
    """Waits until an exclusive open of `dev` succeeds (nobody holds it), at most `limit_s`; returns the
    seconds waited. A process that exits can leave a block device held for a moment after it is gone: an
    io_uring ring with the device as a registered file is torn down asynchronously by the kernel, and wkrun
    opens block devices with O_EXCL, so a run started at once is refused with EBUSY. Both tools get the
    same wait before every run."""
    t0 = time.monotonic()
    while True:
        try:
            os.close(os.open(dev, os.O_RDONLY | os.O_EXCL))
            return time.monotonic() - t0
        except OSError as e:
            if e.errno != errno.EBUSY or time.monotonic() - t0 > limit_s:
                return time.monotonic() - t0
            time.sleep(0.01)


def run_cleanup(t: Target) -> None:
    while t.cleanup:
        f = t.cleanup.pop()
        try:
            f()
        except OSError as e:
            note(f"WARNING: cleanup of {t.name}: {e}")


# ---------------------------------------------------------------------------------------------- runs


@dataclass
class Run:
    tool: str
    round: int
    ok: bool
    iops: float = 0.0
    ios: int = 0
    cpu_s: float = 0.0
    user_s: float = 0.0
    sys_s: float = 0.0
    wall_s: float = 0.0
    settle_s: float = 0.0  # waited before the run for the block device to be released
    load_before: float = 0.0  # 1-minute load average before the run (other work on the machine)
    error: str = ""
    cmd: str = ""

    @property
    def cpu_us_per_io(self) -> float:
        return self.cpu_s / self.ios * 1e6 if self.ios else float("nan")


def timed(cmd: list[str], timeout: float,
          env: dict | None = None) -> tuple[subprocess.CompletedProcess | None, float, float, float, str]:
    """Runs cmd; returns (process, user s, sys s, wall s, error). CPU is the RUSAGE_CHILDREN delta, which
    covers the child and every descendant it waited for (fio's job processes)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    err = ""
    p = None
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        err = f"timed out after {timeout:.0f} s"
    except OSError as e:
        err = f"cannot run: {e}"
    t1 = time.monotonic()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return p, r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime, t1 - t0, err


def shell_quote(cmd: list[str]) -> str:
    return " ".join(shlex.quote(c) for c in cmd)


def proc_error(p: subprocess.CompletedProcess | None, err: str) -> str:
    if err:
        return err
    assert p is not None
    tail = (p.stderr or "").strip() or (p.stdout or "").strip()
    return f"exit code {p.returncode}: {tail[-2000:]}"


def fio_cmd(args, t: Target, c: Case, out_json: str) -> list[str]:
    cmd = [args.fio, "--name=vs_fio"]
    if c.engine != "null":
        cmd.append(f"--filename={t.path}")
    if c.sequential:
        cmd.append("--rw=write")
    else:
        # uniform offsets with replacement, like wkrun's pattern = "random" (coverage = "uniform")
        rw = "randrw" if c.rw.startswith("randrw") else c.rw
        cmd += [f"--rw={rw}", "--norandommap", f"--randseed={args.seed}"]
        if rw == "randrw":
            cmd.append(f"--rwmixread={c.read_percent}")
    cmd += [
        f"--bs={c.bs}", f"--ioengine={c.engine}", f"--iodepth={1 if c.engine == 'psync' else c.qd}",
        f"--direct={1 if t.direct else 0}", "--offset=0", f"--size={t.span}",
        "--time_based", f"--runtime={args.seconds}",
        "--output-format=json", f"--output={out_json}",
    ]
    if c.engine == "psync" and c.qd > 1:
        # fio's psync is synchronous: iodepth > 1 has no effect. wkrun's psync runs QD threads with one I/O
        # each; the fio equivalent is QD jobs (processes) of one I/O each, reported as one group.
        cmd += [f"--numjobs={c.qd}", "--group_reporting"]
    elif c.workers:
        # wkrun's workers: one submitter each with QD I/Os in flight over the whole span ("shared" for random
        # offsets), the equivalent of fio's numjobs (each job a process over the same offset and size)
        cmd += [f"--numjobs={c.workers}", "--group_reporting"]
    if c.read_percent < 100 and not (args.fio_as_check and t.name == "shm"):
        cmd += fio_data_args(args.data)
    if c.engine == "io_uring" and not args.fio_uring_plain and not args.fio_as_check:
        # wkrun's io_uring engine always registers the file and one buffer per slot; give fio the same
        cmd += ["--registerfiles", "--fixedbufs"]
    cmd += args.fio_arg
    return cmd


def run_fio(args, t: Target, c: Case, rnd: int, work: str) -> Run:
    out_json = os.path.join(work, f"fio-{c.tag}-r{rnd}.json")
    cmd = fio_cmd(args, t, c, out_json)
    p, u, s, wall, err = timed(cmd, args.seconds + 120)
    r = Run("fio", rnd, False, user_s=u, sys_s=s, cpu_s=u + s, wall_s=wall, cmd=shell_quote(cmd))
    if err or p is None or p.returncode != 0:
        r.error = proc_error(p, err)
        return r
    try:
        with open(out_json) as f:
            text = f.read()
        # fio may print notes before the JSON object
        j = json.loads(text[text.index("{"):])
        job = j["jobs"][0]
        if job.get("error"):
            r.error = f"fio job error {job['error']}: {p.stderr.strip()[-2000:]}"
            return r
        for d in ("read", "write"):
            x = job[d]
            r.iops += float(x["iops"])
            r.ios += int(x.get("total_ios") or x["io_kbytes"] * 1024 // c.bs)
        r.ok = r.ios > 0
        if not r.ok:
            r.error = "fio reported no I/O"
    except (OSError, ValueError, KeyError, IndexError) as e:
        r.error = f"cannot read fio's JSON output {out_json}: {e}"
    return r


WKRUN_SPEC = """\
format = 1

[spec]
name = "vs-fio-{tag}"
version = "1"
description = "benches/vs_fio.py: {label}, compared with fio"

[defaults]
engine = "{engine}"
direct = {direct}
data = "{data}"
seed = {seed}

[[phase]]
name = "{rw}"
kind = "workload"
pattern = "{pattern}"
span = "{span}"
block_size = "{bs}"
queue_depth = {qd}{workers}
read_percent = {read_percent}
duration = "{seconds}s"
"""


def workers_lines(c: Case) -> str:
    """The spec lines of a `wN` case (none without one: the spec is as before workers existed)."""
    if not c.workers:
        return ""
    return f"\nworkers = {c.workers}" + ("" if c.sequential else '\nworkers_split = "shared"')


def wkrun_cmd(args, t: Target, spec: str, out_dir: str) -> list[str]:
    cmd = [args.wkrun, "run", spec, "--target", t.path, "-o", out_dir, "-q"]
    if t.name == "none":
        cmd += ["--target-size", str(t.span)]
    if t.is_block:
        cmd += ["--allow-destroy", t.path]
    return cmd


def run_wkrun(args, t: Target, c: Case, rnd: int, work: str, record: bool = True) -> Run:
    spec = os.path.join(work, f"wkrun-{c.tag}.toml")
    if not os.path.exists(spec):
        with open(spec, "w") as f:
            f.write(WKRUN_SPEC.format(tag=c.tag, label=c.label, engine=c.engine, rw=c.rw,
                                      direct=str(t.direct).lower(), data=args.data, seed=args.seed,
                                      pattern="sequential" if c.sequential else "random", span=t.span,
                                      bs=c.bs, qd=c.qd, workers=workers_lines(c),
                                      read_percent=c.read_percent, seconds=args.seconds))
    tool = "wkrun" if record else "wkrun-norecord"
    out_dir = os.path.join(work, f"{tool}-{c.tag}-r{rnd}")  # fresh folder per run
    cmd = wkrun_cmd(args, t, spec, out_dir)
    env = {k: v for k, v in os.environ.items() if k != NO_RECORD_ENV}
    if not record:
        env[NO_RECORD_ENV] = "1"
    p, u, s, wall, err = timed(cmd, args.seconds + 120, env)
    r = Run(tool, rnd, False, user_s=u, sys_s=s, cpu_s=u + s, wall_s=wall,
            cmd=("" if record else f"{NO_RECORD_ENV}=1 ") + shell_quote(cmd))
    if err or p is None or p.returncode != 0:
        r.error = proc_error(p, err)
        return r
    try:
        with open(os.path.join(out_dir, "results.json")) as f:
            j = json.load(f)
        if j.get("status") != "completed":
            r.error = f"results.json status {j.get('status')!r}: {json.dumps(j.get('error'))}"
            return r
        ph = j["phases"][0]
        r.iops = float(ph["read"]["iops"]) + float(ph["write"]["iops"])
        r.ios = int(ph["read"]["ops"]) + int(ph["write"]["ops"])
        r.ok = r.ios > 0
        if not r.ok:
            r.error = "wkrun reported no I/O"
    except (OSError, ValueError, KeyError, IndexError) as e:
        r.error = f"cannot read {out_dir}/results.json: {e}"
    return r


# ---------------------------------------------------------------------------------------------- table


def stats_of(runs: list[Run]) -> dict | None:
    ok = [r for r in runs if r.ok]
    if not ok:
        return None
    iops = [r.iops for r in ok]
    cpu = [r.cpu_us_per_io for r in ok]
    return {"n": len(ok), "of": len(runs), "median": statistics.median(iops), "min": min(iops),
            "max": max(iops), "cpu_us_per_io": statistics.median(cpu), "cpu_min": min(cpu),
            "cpu_max": max(cpu)}


def fmt_iops(s: dict | None) -> str:
    if s is None:
        return "FAILED"
    more = f" ({s['n']}/{s['of']} ok)" if s["n"] != s["of"] else ""
    return f"{human(s['median'])} ({human(s['min'])}–{human(s['max'])}){more}"


def table(rows: list[dict]) -> str:
    head = ["target", "engine", "QD", "workload", "B", "B IOPS median (min–max)", "wkrun IOPS median (min–max)",
            "IOPS wkrun/B", "B CPU µs/IO", "wkrun CPU µs/IO", "CPU/IO wkrun/B", "goal", "verdict"]
    lines = []
    for row in rows:
        f, w = row["b"], row["wkrun"]
        ratio = w["median"] / f["median"] if f and w else None
        cratio = w["cpu_us_per_io"] / f["cpu_us_per_io"] if f and w else None
        goal, cpu_goal = row["goal"], row["cpu_goal"]
        goal_text = f"IOPS ≥ {goal}" + (", CPU ≤ 1.0" if cpu_goal else "")
        if ratio is None:
            verdict = "—"
        else:
            short = ratio < goal or (cpu_goal and cratio is not None and cratio > 1.0)
            verdict = "SHORT" if short else "met"
        lines.append([row["target"], row["engine"], str(row["qd"]), row["workload"], row["vs"], fmt_iops(f),
                      fmt_iops(w), f"{ratio:.2f}" if ratio is not None else "—",
                      f"{f['cpu_us_per_io']:.2f}" if f else "—", f"{w['cpu_us_per_io']:.2f}" if w else "—",
                      f"{cratio:.2f}" if cratio is not None else "—", goal_text, verdict])
    widths = [max(len(h), *(len(line[i]) for line in lines)) if lines else len(h) for i, h in enumerate(head)]
    right = {2, 7, 8, 9, 10}

    def fmt(cells):
        return "| " + " | ".join(c.rjust(widths[i]) if i in right else c.ljust(widths[i])
                                 for i, c in enumerate(cells)) + " |"

    sep = "|" + "|".join(("-" * (w + 1) + ":") if i in right else ("-" * (w + 2))
                         for i, w in enumerate(widths)) + "|"
    return "\n".join([fmt(head), sep] + [fmt(line) for line in lines])


# ---------------------------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(
        description="Compare wkrun with fio on the rows of issue 6 (null engine, a /dev/shm file, zram), fio "
                    "and wkrun alternately, several rounds each; and wkrun with per-I/O recording on vs off.",
        epilog="Example: cargo build --release && sudo python3 benches/vs_fio.py")
    ap.add_argument("--wkrun", default=None,
                    help="wkrun binary (default: target/release/wkrun of this checkout; build it with "
                         "`cargo build --release`)")
    ap.add_argument("--fio", default="fio", help="fio binary (default: %(default)s, from PATH)")
    ap.add_argument("-n", "--rounds", type=int, default=3, help="rounds per tool and case (default: 3)")
    ap.add_argument("-s", "--seconds", type=int, default=5, help="seconds per run (default: 5)")
    ap.add_argument("--targets", default="none,shm,zram",
                    help="run only the cases on these targets, comma-separated: none (the null engine), shm, "
                         "zram (default: %(default)s)")
    ap.add_argument("--cases", type=parse_cases, default=parse_cases(DEFAULT_CASES),
                    help="comma-separated [rec@]TARGET:ENGINE:QD[:RW[:BS]][:wN], RW = randwrite (default), "
                         "randread, randrwN (N %% reads), write (sequential); BS default 4k; wN: N workers "
                         "(fio --numjobs=N); rec@ compares "
                         "wkrun with recording on and off (default: the rows of issue 6: %(default)s)".replace(
                             "%(default)s", DEFAULT_CASES))
    ap.add_argument("--size", type=parse_size, default=parse_size("1GiB"),
                    help="span: size of the shm file and of the zram disk (default: 1GiB)")
    ap.add_argument("--data", type=parse_data, default="random",
                    help="random (default), zeros or compressible:N%% (fio gets the matching buffer options)")
    ap.add_argument("--seed", type=int, default=1, help="wkrun seed and fio --randseed (default: 1)")
    ap.add_argument("--shm-path", default="/dev/shm/wkrun-vs-fio.img",
                    help="file created (and deleted) for the shm target (default: %(default)s)")
    ap.add_argument("--zram-device", default="/dev/zram0", help="zram device (default: %(default)s)")
    ap.add_argument("--zram-reuse", action="store_true",
                    help="use a zram device that is already configured (its data is destroyed); "
                         "it is left configured afterwards")
    ap.add_argument("--no-settle", action="store_true",
                    help="do not wait, before each run on a block device, until an exclusive open succeeds")
    ap.add_argument("--fio-uring-plain", action="store_true",
                    help="do not give fio --registerfiles --fixedbufs for io_uring")
    ap.add_argument("--fio-as-check", action="store_true",
                    help="fio options as in the shared check perf_vs_fio.py: no --registerfiles --fixedbufs, "
                         "and on shm fio's default write buffers (filled once) instead of --refill_buffers")
    ap.add_argument("--fio-arg", action="append", default=[], metavar="ARG",
                    help="extra argument for every fio run (repeatable), e.g. --fio-arg=--gtod_reduce=1")
    ap.add_argument("--keep", metavar="DIR",
                    help="keep specs, fio JSON and wkrun results folders in DIR (default: a temporary "
                         "folder, deleted)")
    ap.add_argument("--json", metavar="FILE", help="also write every run and the table data as JSON")
    args = ap.parse_args()

    if args.rounds < 1 or args.seconds < 1:
        die("--rounds and --seconds must be at least 1")
    targets = [x.strip() for x in args.targets.split(",") if x.strip()]
    for x in targets:
        if x not in TARGETS:
            die(f"unknown target {x!r} in --targets ({', '.join(TARGETS)})")
    if not sys.platform.startswith("linux"):
        die("Linux only")

    fio = shutil.which(args.fio)
    if not fio:
        die(f"fio not found ({args.fio!r}). Install it, e.g. `sudo apt-get install fio` (Debian/Ubuntu) or "
            f"`sudo dnf install fio` (Fedora), or pass --fio PATH. This script installs nothing.")
    args.fio = fio
    if args.wkrun is None:
        args.wkrun = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "wkrun")
    fio_version = run_capture([fio, "--version"])
    if not (os.path.isfile(args.wkrun) and os.access(args.wkrun, os.X_OK)):
        die(f"wkrun binary {args.wkrun!r} not found or not executable: run `cargo build --release` first, "
            f"or pass --wkrun PATH")
    args.wkrun = os.path.abspath(args.wkrun)
    wkrun_version = run_capture([args.wkrun, "--version"])

    mach = machine_info()
    print(f"machine: {mach['nproc']} CPUs, {mach['cpu_model']}, kernel {mach['kernel']}")
    print(f"fio: {fio_version} ({fio}); wkrun: {wkrun_version} ({args.wkrun})")
    print(f"cases: {', '.join(c.tag for c in args.cases)}; "
          f"data {args.data}, seed {args.seed}, span {args.size >> 20} MiB, "
          f"{args.rounds} rounds x {args.seconds} s per tool and case, fio and wkrun alternately")
    sys.stdout.flush()

    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        work = os.path.abspath(args.keep)
    else:
        work = tempfile.mkdtemp(prefix="wkrun-vs-fio-")

    def on_term(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)

    rows: list[dict] = []
    all_runs: list[dict] = []
    problems: list[str] = []
    target_info: dict[str, str] = {}
    interrupted = False
    settles: list[str] = []
    loads: list[float] = []
    prev, prev_case = "-", "-"
    try:
        for tname in TARGETS:
            cases = [c for c in args.cases if c.target == tname]
            if tname not in targets or not cases:
                continue
            if tname == "none":
                t = setup_none(args, work)
            else:
                t = setup_shm(args) if tname == "shm" else setup_zram(args)
            if t is None:
                continue
            target_info[t.name] = t.info
            print(f"\ntarget {t.name}: {t.info}", flush=True)
            try:
                for c in cases:
                    b_tool = "fio" if c.vs == "fio" else "wkrun-norecord"
                    runs: dict[str, list[Run]] = {b_tool: [], "wkrun": []}
                    for rnd in range(args.rounds):
                        # alternate, and swap who goes first every round (ABBA) so that drift cancels
                        order = (b_tool, "wkrun") if rnd % 2 == 0 else ("wkrun", b_tool)
                        for tool in order:
                            settle = wait_released(t.path) if t.is_block and not args.no_settle else 0.0
                            load = loadavg()
                            if tool == "fio":
                                r = run_fio(args, t, c, rnd, work)
                            else:
                                r = run_wkrun(args, t, c, rnd, work, record=tool == "wkrun")
                            r.settle_s = settle
                            r.load_before = load
                            loads.append(load)
                            what = f"{c.engine} QD{c.qd} {c.label}"
                            if settle >= 0.001:
                                settles.append(f"{t.path} still held {settle * 1e3:.0f} ms after {prev} "
                                               f"({prev_case}) exited; waited before {tool} ({what} "
                                               f"round {rnd + 1})")
                            prev, prev_case = tool, what
                            runs[tool].append(r)
                            all_runs.append({"target": t.name, "engine": c.engine, "qd": c.qd,
                                             "workload": c.label, **r.__dict__})
                            if r.ok:
                                print(f"  {t.name:4} {what:28} round {rnd + 1}  {tool:14} "
                                      f"{r.iops:>11.0f} IOPS  {r.cpu_us_per_io:6.2f} µs CPU/IO "
                                      f"(user {r.user_s:.2f} s, sys {r.sys_s:.2f} s, load {load:.1f})"
                                      + (f"  [waited {settle * 1e3:.0f} ms for {t.path} to be released]"
                                         if settle >= 0.001 else ""), flush=True)
                            else:
                                print(f"  {t.name:4} {what:28} round {rnd + 1}  {tool:14} FAILED: "
                                      f"{r.error.splitlines()[0] if r.error else ''}", flush=True)
                                problems.append(f"{tool} failed on {t.name} {what} round {rnd + 1}\n"
                                                f"  command: {r.cmd}\n  output: {r.error}")
                    goal, cpu_goal = c.goal()
                    rows.append({"target": t.name, "engine": c.engine, "qd": c.qd, "workload": c.label,
                                 "vs": "fio" if c.vs == "fio" else "wkrun rec. off", "goal": goal,
                                 "cpu_goal": cpu_goal, "b": stats_of(runs[b_tool]),
                                 "wkrun": stats_of(runs["wkrun"])})
                if t.name == "zram":
                    target_info[t.name] += f"; after the runs: {zram_mm_stat(t.path)}"
                    print(f"  zram after the runs: {zram_mm_stat(t.path)}")
            finally:
                run_cleanup(t)
    except KeyboardInterrupt:
        interrupted = True
        note("interrupted; printing what was measured")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    print()
    if rows:
        print(table(rows))
        print("\nB: what wkrun is compared with: fio, or wkrun itself with per-I/O recording off "
              f"({NO_RECORD_ENV}=1). IOPS: median (min–max) over the rounds, reads and writes together "
              "(for the 128k row, bandwidth = IOPS x 128 KiB, so the ratio is the bandwidth ratio). CPU µs/IO: "
              "user + system CPU time of the whole process (RUSAGE_CHILDREN delta) / I/Os completed, median "
              "over the rounds. Ratios: wkrun / B of the medians. Goals: issue 6.")
        if loads:
            print(f"1-minute load average before the runs: {min(loads):.1f} to {max(loads):.1f} "
                  f"(median {statistics.median(loads):.1f}) on {mach['nproc']} CPUs; the runs themselves keep it "
                  f"near 1 to 2, more means other work shared the machine")
    else:
        print("nothing measured" + ("" if interrupted else " (see the SKIP messages above)"))
    if settles:
        print(f"\nblock device not yet released when the next run started ({len(settles)} times; the harness "
              f"waited, see --no-settle):")
        for x in settles:
            print("- " + x)
    if problems:
        print("\nproblems:")
        for p in problems:
            print("- " + p)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": mach, "fio_version": fio_version, "wkrun_version": wkrun_version,
                       "params": {"rounds": args.rounds, "seconds": args.seconds, "span_bytes": args.size,
                                  "data": args.data, "seed": args.seed},
                       "targets": target_info, "table": rows, "runs": all_runs, "device_release_waits": settles}, f, indent=1)
    if interrupted:
        return 130
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
