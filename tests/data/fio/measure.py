#!/usr/bin/env python3
"""Measures, on fio's json+ outputs (as corpus.py writes them), what the rules of src/fio/plausible.rs
hold fio to: an independent statement of each rule, printing every output that breaks one and the
extremes seen.

Bucket arithmetic, as fio's json+ output shows it: a bin's key is a latency in ns; below 128 a key is one
value; from 2^m up (m >= 7) a doubling is cut into 64 buckets of 2^(m-6) ns and a key is its bucket's
lowest value plus half the bucket's width.

Usage: python3 tests/data/fio/measure.py FILE.json...
"""
import json, sys

PRINTED = 1e-5


def bounds(v):
    if v < 128:
        return v, v
    m = v.bit_length() - 1
    w = 1 << (m - 6)
    if (v - (1 << m)) % w != w // 2:
        raise ValueError(f"bin {v} is not a bucket's value")
    return v - w // 2, v - w // 2 + w - 1


def pct_rule(bins, n, q):
    want = q / 100.0 * n
    seen = 0
    for v, c in bins:
        seen += c
        if seen >= want and seen > 0:
            return v
    return None


def size_bounds(opts, d):
    """(smallest, largest) I/O size of direction d (0 read, 1 write, 2 trim) the options state, else 4k."""
    from_opts = None
    def one(s):
        s = s.strip().lower()
        mult = {"k": 1024, "m": 1 << 20, "g": 1 << 30}
        for suf in ("kib", "kb", "k", "mib", "mb", "m", "gib", "gb", "g", "b"):
            if s.endswith(suf):
                base = s[: -len(suf)]
                return int(base) * mult.get(suf[0], 1)
        return int(s)
    def pick(v):
        parts = v.split(",")
        return parts[min(d, len(parts) - 1)] if parts[min(d, len(parts) - 1)] else parts[0]
    if "bssplit" in opts:
        sizes = [one(e.split("/")[0]) for e in pick(opts["bssplit"]).split(":") if e]
        return min(sizes), max(sizes)
    if "bsrange" in opts:
        lo, hi = pick(opts["bsrange"]).split("-")
        return one(lo), one(hi)
    for k in ("bs", "blocksize"):
        if k in opts:
            s = one(pick(opts[k]))
            return s, s
    return 4096, 4096


def main():
    stats = {"outputs": 0, "blocks": 0, "pcts": 0, "means": 0, "dirs": 0}
    worst = {"n_minus_ios_over_depth_jobs": 0.0, "ios_minus_n": 0, "size_over": 0.0}
    for path in sys.argv[1:]:
        text = open(path).read()
        doc = json.loads(text[text.index("{"):])
        stats["outputs"] += 1
        g = doc.get("global options", {})
        for ji, j in enumerate(doc["jobs"]):
            opts = dict(g, **j.get("job options", {}))
            depth = int(opts.get("iodepth", "1"))
            # fio's job options leave out options without a value (group_reporting): numjobs bounds a
            # clone's report as well as a group's.
            jobs = int(opts.get("numjobs", "1"))
            # A job that failed counts its failed I/Os in total_ios, without bytes or latency.
            failed = j.get("error", 0) != 0 or j.get("total_err", 0) != 0
            for di, d in enumerate(("read", "write", "trim")):
                o = j.get(d)
                if not o:
                    continue
                ios, by = o["total_ios"], o["io_bytes"]
                for k in ("lat_ns", "clat_ns", "slat_ns"):
                    b = o.get(k)
                    if not b or "bins" not in b or b.get("N", 0) == 0:
                        continue
                    stats["blocks"] += 1
                    bins = sorted((int(v), c) for v, c in b["bins"].items() if c)
                    n = sum(c for _, c in bins)
                    lo = sum(bounds(v)[0] * c for v, c in bins) / n
                    hi = sum(bounds(v)[1] * c for v, c in bins) / n
                    stats["means"] += 1
                    if not (lo - PRINTED <= b["mean"] <= hi + PRINTED):
                        print(f"{path} jobs[{ji}].{d}.{k}.mean {b['mean']} outside {lo}..{hi}")
                    if not (bounds(bins[0][0])[0] <= b["min"] <= bounds(bins[0][0])[1]):
                        print(f"{path} jobs[{ji}].{d}.{k}.min {b['min']} not in first bin {bins[0][0]}")
                    if not (bounds(bins[-1][0])[0] <= b["max"] <= bounds(bins[-1][0])[1]):
                        print(f"{path} jobs[{ji}].{d}.{k}.max {b['max']} not in last bin {bins[-1][0]}")
                    for q, v in b.get("percentile", {}).items():
                        stats["pcts"] += 1
                        want = pct_rule(bins, n, float(q))
                        if want != v:
                            print(f"{path} jobs[{ji}].{d}.{k}.percentile {q}: {v}, the rule gives {want}")
                n = (o.get("clat_ns") or o.get("lat_ns") or {}).get("N", 0)
                if ios and n:
                    stats["dirs"] += 1
                    over = (n - ios) / (depth * jobs)
                    worst["n_minus_ios_over_depth_jobs"] = max(worst["n_minus_ios_over_depth_jobs"], over)
                    if not failed:
                        worst["ios_minus_n"] = max(worst["ios_minus_n"], ios - n)
                    if n > ios + depth * jobs or (n < ios and not failed):
                        print(f"{path} jobs[{ji}].{d}: N {n} total_ios {ios} depth {depth} jobs {jobs}")
                if ios:
                    smin, smax = size_bounds(opts, di)
                    size = by / ios
                    short = o.get("short_ios", 0)
                    if size > smax:
                        extra = (by - ios * smax) / smax
                        worst["size_over"] = max(worst["size_over"], extra / (depth * jobs))
                    if (by < (ios - short) * smin and not failed) or by > (ios + depth * jobs) * smax:
                        print(f"{path} jobs[{ji}].{d}: io_bytes/total_ios {size} outside {smin}..{smax} (io_bytes {by}, total_ios {ios}, depth {depth} jobs {jobs})")
    print(stats, worst)


main()
