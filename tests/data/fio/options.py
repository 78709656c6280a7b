#!/usr/bin/env python3
"""Writes src/spec/fio_options.txt: every option of fio's option tables (options.c, engines/*.c, profiles/*.c),
one line each: name, type, alias (- for none), where fio defines it (core, engine:NAME, profile:NAME).

Usage: python3 tests/data/fio/options.py FIO_GIT_DIR > src/spec/fio_options.txt
(FIO_GIT_DIR: a clone of https://github.com/axboe/fio, or its .git folder; HEAD is read.)
"""
import re, subprocess, sys

git = ["git", "--git-dir", sys.argv[1]] if len(sys.argv) > 1 else ["git"]


def run(*args):
    return subprocess.run(git + list(args), capture_output=True, text=True, check=True).stdout


def entries(src):
    """The top-level { ... } entries of every `struct fio_option NAME[...] = { ... }` array."""
    for m in re.finditer(r"struct fio_option\s+\w+\s*\[\w*\]\s*=\s*\{", src):
        i, depth = m.end(), 1
        j = i
        while depth and j < len(src):
            depth += {"{": 1, "}": -1}.get(src[j], 0)
            j += 1
        yield from header_entries(src[i:j])


def header_entries(src):
    """The top-level { ... } blocks of a text: an array's entries, or a header's (option tables in macros, as
    engines/cmdprio.h's)."""
    d, start = 0, None
    for k, ch in enumerate(src):
        if ch == "{":
            d += 1
            if d == 1:
                start = k
        elif ch == "}":
            if d == 1 and start is not None:
                yield src[start:k]
            d = max(d - 1, 0)


def origin(path):
    if path == "options.c":
        return "core"
    kind, name = path.split("/", 1)
    if name == "cmdprio.h":  # the priority options the libaio and io_uring engines share
        return "engine:libaio/io_uring"
    return ("engine:" if kind == "engines" else "profile:") + name.rsplit(".", 1)[0]


files = ["options.c"] + [
    f for f in run("ls-tree", "-r", "--name-only", "HEAD", "engines/", "profiles/").split() if f.endswith((".c", ".h"))
]
rows = {}
for f in files:
    src = run("show", "HEAD:" + f)
    for ent in (header_entries(src) if f.endswith(".h") else entries(src)):
        name = re.search(r'\.name\s*=\s*"([^"]+)"', ent)
        kind = re.search(r"\.type\s*=\s*FIO_OPT_(\w+)", ent)
        alias = re.search(r'\.alias\s*=\s*"([^"]+)"', ent)
        if name and kind and name.group(1) not in rows:
            rows[name.group(1)] = (kind.group(1).lower(), alias.group(1) if alias else "-", origin(f))

version = run("describe", "--tags", "HEAD").strip()
print("# fio's job options: name, type, alias (- for none), where fio defines it (core, engine:NAME or profile:NAME).")
print(f"# Extracted from the struct fio_option tables of fio's options.c, engines/*.c and profiles/*.c at {version}")
print("# (https://github.com/axboe/fio, GPL-2.0: the option names are fio's interface, listed here as facts).")
print("# wkrun import fio takes an option named here but not mapped as fio's, and refuses (with --lossy, drops) it; a name")
print("# not here is refused as fio refuses it. Regenerate: python3 tests/data/fio/options.py FIO_GIT_DIR > this file.")
for name in sorted(rows):
    print(name, *rows[name])
