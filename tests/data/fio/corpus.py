#!/usr/bin/env python3
"""Runs fio (3.33 here) on files in a scratch folder with many kinds of job and writes each run's
`--output-format=json+` output there, as NN-name.json: the real outputs the rules of src/fio/plausible.rs
were measured on (each must pass `wkrun validate`).

Usage: python3 tests/data/fio/corpus.py DIR [PREFIX...]   (PREFIX: run only the jobs whose name starts so)
"""
import os, subprocess, sys

BASE = ["--filename=f", "--size=8m"]
AIO = ["--ioengine=libaio", "--direct=1"]
URING = ["--ioengine=io_uring", "--direct=1"]
TB = ["--time_based", "--runtime=1"]
RAMP = ["--ramp_time=1", "--time_based", "--runtime=1"]

JOBS = {
    "psync-randread": ["--rw=randread"],
    "psync-randwrite": ["--rw=randwrite"],
    "psync-rw": ["--rw=rw"],
    "psync-randrw70": ["--rw=randrw", "--rwmixread=70"],
    "aio-randread-qd8": AIO + ["--rw=randread", "--iodepth=8"],
    "aio-randwrite-qd32": AIO + ["--rw=randwrite", "--iodepth=32"],
    "aio-randrw-qd16": AIO + ["--rw=randrw", "--iodepth=16"],
    "uring-randread-qd4": URING + ["--rw=randread", "--iodepth=4"],
    "uring-randrw-qd32": URING + ["--rw=randrw", "--iodepth=32"],
    "uring-write-128k-qd2": URING + ["--rw=write", "--bs=128k", "--iodepth=2"],
    "aio-read-64k": AIO + ["--rw=read", "--bs=64k"],
    "falloc-randtrim-qd8": ["--ioengine=falloc", "--rw=randtrim", "--iodepth=8"],
    "falloc-trim": ["--ioengine=falloc", "--rw=trim"],
    "falloc-trimwrite": ["--ioengine=falloc", "--rw=trimwrite"],
    "ramp-aio-randread-qd16": AIO + ["--rw=randread", "--iodepth=16"] + RAMP,
    "ramp-uring-randrw-qd32": URING + ["--rw=randrw", "--iodepth=32"] + RAMP,
    "ramp-psync-nj2": ["--rw=randrw", "--numjobs=2"] + RAMP,
    "ramp-aio-qd32-nj2-group": AIO + ["--rw=randwrite", "--iodepth=32", "--numjobs=2", "--group_reporting"] + RAMP,
    "ramp-uring-qd32-nj2": URING + ["--rw=randread", "--iodepth=32", "--numjobs=2"] + RAMP,
    "ramp-aio-qd8-rate": AIO + ["--rw=randread", "--iodepth=8", "--rate_iops=2000"] + RAMP,
    "nj3-psync-randrw": ["--rw=randrw", "--numjobs=3"],
    "nj4-group-aio-qd8": AIO + ["--rw=randread", "--iodepth=8", "--numjobs=4", "--group_reporting"],
    "verify-psync-randwrite": ["--rw=randwrite", "--verify=crc32c"],
    "verify-aio-write-qd8": AIO + ["--rw=write", "--verify=md5", "--iodepth=8"],
    "verify-uring-randwrite-qd16": URING + ["--rw=randwrite", "--verify=crc32c", "--iodepth=16"],
    "verify-ramp-aio-qd8": AIO + ["--rw=randwrite", "--verify=crc32c", "--iodepth=8", "--ramp_time=1"],
    "rate-psync-500": ["--rw=randread", "--rate_iops=500"] + TB,
    "rate-aio-2m-qd4": AIO + ["--rw=randwrite", "--rate=2m", "--iodepth=4"] + TB,
    "rate-psync-rw-pair": ["--rw=randrw", "--rate_iops=300,100"] + TB,
    "pct-odd": AIO + ["--rw=randrw", "--iodepth=4", "--percentile_list=1:5:33.3:66.7:99.5:99.95:99.999"],
    "pct-edges": ["--rw=randread", "--percentile_list=0.01:100"],
    "pct-no-p99": ["--rw=randread", "--percentile_list=50:90:99.9:99.99"],
    "lat-percentiles": AIO + ["--rw=randrw", "--iodepth=8", "--lat_percentiles=1"],
    "slat-percentiles": AIO + ["--rw=randread", "--iodepth=8", "--slat_percentiles=1", "--lat_percentiles=1"],
    "tiny-16k": ["--rw=randread", "--size=16k"],
    "tiny-one-io": ["--rw=read", "--size=4k"],
    "long-psync-3s": ["--rw=randread", "--time_based", "--runtime=3"],
    "bsrange": ["--rw=randread", "--bsrange=4k-64k"],
    "bssplit": AIO + ["--rw=randrw", "--bssplit=4k/50:64k/50", "--iodepth=4"],
    "bs-pair": ["--rw=randrw", "--bs=4k,16k"],
    "bs-512": ["--rw=randread", "--bs=512"],
    "buffered-randread": ["--rw=randread", "--direct=0"],
    "null-randread": ["--ioengine=null", "--rw=randread", "--size=64m"],
    "null-nj2-group": ["--ioengine=null", "--rw=randrw", "--size=64m", "--numjobs=2", "--group_reporting"],
    "fsync4": ["--rw=randwrite", "--fsync=4"],
    "fdatasync8": ["--rw=randwrite", "--fdatasync=8"],
    "number-ios": ["--rw=randread", "--number_ios=100"],
    "io-size": AIO + ["--rw=randwrite", "--io_size=2m", "--iodepth=4"],
    "psync-write-1m": ["--rw=write", "--bs=1m", "--size=32m"],
    "uring-rw-8k-qd24": URING + ["--rw=rw", "--bs=8k", "--iodepth=24", "--rwmixread=90"],
    "clat-pct-off": ["--rw=randread", "--clat_percentiles=0"],
    "unified": ["--rw=randrw", "--unified_rw_reporting=1"],
    "norandommap-aio": AIO + ["--rw=randwrite", "--norandommap", "--iodepth=8"],
    "coe-psync-trim": ["--rw=randtrim", "--continue_on_error=all", "--size=1m"],
    "coe-aio-rw": AIO + ["--rw=randrw", "--continue_on_error=all", "--iodepth=8"],
    "qd1-aio-buffered": ["--ioengine=libaio", "--rw=randread", "--direct=0"],
    "uring-qd32-nj2-group-ramp-verify": URING + ["--rw=randwrite", "--iodepth=32", "--numjobs=2", "--group_reporting", "--verify=crc32c", "--ramp_time=1"],
    "loops2": ["--rw=randread", "--loops=2", "--size=2m"],
    "size-odd": ["--rw=read", "--size=10000"],
    "ramp-psync-rate": ["--rw=randwrite", "--rate_iops=400"] + RAMP,
    "ramp-uring-qd1": URING + ["--rw=randread"] + RAMP,
}


def main():
    out = sys.argv[1]
    only = sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    for i, (name, args) in enumerate(JOBS.items()):
        if only and not any(name.startswith(p) for p in only):
            continue
        path = f"{i:02d}-{name}.json"
        # No bs given: fio's default, 4k (the job options then name none).
        cmd = ["fio", f"--name={name}"] + BASE + args
        cmd += ["--output-format=json+", f"--output={path}"]
        r = subprocess.run(cmd, cwd=out, capture_output=True, text=True, timeout=120)
        print(f"{out}/{path}: exit {r.returncode}", r.stderr.strip()[:200])


if __name__ == "__main__":
    main()
