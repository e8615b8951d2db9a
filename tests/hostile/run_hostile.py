#!/usr/bin/env python3
"""The hostile-file suite: runs `dctool dct2 F -o OUT/x.npy`, `dctool psnr F F` and `dctool compress F -o OUT/x.png`
on every file of tests/data/hostile/MANIFEST (written by scripts/make_hostile.py) and checks each run (compress takes images only: for any other file it
must fail as for a broken one):

- never killed by a signal, never over --timeout seconds (20) or --memory bytes of address space (2 GB);
- a broken file (EXPECT err3 / err) exits 3 (err: 2, 3 or 4), a valid one (ok) exits 0, `any` may do either;
- a failing run prints exactly one printable line on stderr, `dctool: error: ` followed by text that names the file;
- nothing is left in the output directory or the working directory after a failure (after a success, only the output).

  run_hostile.py --dctool build/dctool [--dir tests/data/hostile] [--jobs N] [--only SUBSTRING] [--no-memory-limit]

Exit status 0 when every run passes; otherwise one `FAIL` line per failed run and the list of failing files.
"""
import argparse
import concurrent.futures
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

COMMANDS = {
    "dct2": lambda f, out: ["dct2", f, "-o", os.path.join(out, "x.npy")],
    "psnr": lambda f, out: ["psnr", f, f],
    "compress": lambda f, out: ["compress", f, "-o", os.path.join(out, "x.png")],
}
OUTPUT = {"dct2": "x.npy", "psnr": None, "compress": "x.png"}
IMAGES = (".png", ".jpg", ".jpeg", ".bmp", ".tga", ".pgm", ".ppm")


def read_manifest(path):
    entries = []
    with open(path) as m:
        for line in m:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            words = line.split()
            per_cmd = dict(w.split("=", 1) for w in words[2:] if "=" in w and w.split("=", 1)[0] in COMMANDS)
            args = [w for w in words[2:] if not ("=" in w and w.split("=", 1)[0] in COMMANDS)]
            entries.append((words[0], words[1], args, per_cmd))
    return entries


def expectation(name, expect, args, per_cmd, cmd):
    """What `cmd` must do with this file, and the extra arguments it gets."""
    if cmd == "compress" and not name.lower().endswith(IMAGES):
        return "err", []  # compress takes images: a matrix (or a raw file without --shape) is refused naming it
    return per_cmd.get(cmd, expect), args


def printable_line(err):
    """Why `err` (stderr bytes) is not exactly one printable line, or None."""
    if not err:
        return "nothing on stderr"
    if not err.endswith(b"\n"):
        return "stderr does not end with a newline"
    if err.count(b"\n") != 1:
        return "stderr has %d lines" % err.count(b"\n")
    try:
        text = err[:-1].decode("utf-8")
    except UnicodeDecodeError:
        return "stderr is not UTF-8"
    bad = [c for c in text if ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0]
    if bad:
        return "stderr has control characters %r" % "".join(bad)
    return None


def run_one(args, dctool, directory, name, expect, extra, per_cmd, cmd):
    expect, extra = expectation(name, expect, extra, per_cmd, cmd)
    path = os.path.join(directory, name)
    work = tempfile.mkdtemp(prefix="dctool-hostile.")
    out = os.path.join(work, "out")
    os.mkdir(out)
    argv = [dctool] + COMMANDS[cmd](path, out) + extra
    limit = None if args.no_memory_limit else args.memory

    def limits():
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    problems = []
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=args.timeout, preexec_fn=limits)
        code, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired as e:
        code, err = None, e.stderr or b""
        problems.append("timed out after %d s" % args.timeout)
    elapsed = time.monotonic() - t0
    if code is not None and code < 0:
        problems.append("killed by signal %d" % -code)
    elif code is not None and code >= 128:
        problems.append("exit %d (a signal's code)" % code)
    elif code == 0:
        if expect in ("err3", "err"):
            problems.append("exit 0 on a broken file")
    else:
        if expect == "ok":
            problems.append("exit %s on a valid file" % code)
        elif expect == "err3" and code != 3:
            problems.append("exit %s (expected 3)" % code)
        elif expect in ("err", "any") and code not in (2, 3, 4):
            problems.append("exit %s (expected 2, 3 or 4)" % code)
        why = printable_line(err)
        if why:
            problems.append(why)
        else:
            line = err.decode("utf-8").rstrip("\n")
            if not line.startswith("dctool: error: "):
                problems.append("stderr does not start with 'dctool: error: '")
            if name not in line:
                problems.append("message does not name the file")
    left = sorted(os.path.relpath(os.path.join(d, f), work) for d, _, fs in os.walk(work) for f in fs)
    allowed = {os.path.join("out", OUTPUT[cmd])} if code == 0 and OUTPUT[cmd] else set()
    litter = [f for f in left if f not in allowed]
    if litter:
        problems.append("left %s" % ", ".join(litter))
    if code == 0 and OUTPUT[cmd] and os.path.join("out", OUTPUT[cmd]) not in left:
        problems.append("exit 0 without writing %s" % OUTPUT[cmd])
    shutil.rmtree(work, ignore_errors=True)
    if problems:
        shown = err[:300].decode("utf-8", "backslashreplace").replace("\n", "\\n")
        return "FAIL %s %s (%s, exit %s, %.1f s): %s | stderr: %s" % (
            name, cmd, expect, code, elapsed, "; ".join(problems), shown)
    return None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="dctool's hostile-file suite")
    ap.add_argument("--dctool", required=True)
    ap.add_argument("--dir", default=os.path.normpath(os.path.join(here, "..", "data", "hostile")))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=int, default=20)
    ap.add_argument("--memory", type=int, default=2 << 30, help="address-space limit in bytes (default 2 GiB)")
    ap.add_argument("--no-memory-limit", action="store_true",
                    help="no address-space limit (sanitizer builds reserve terabytes of shadow memory)")
    ap.add_argument("--only", default="", help="only files whose name contains this")
    args = ap.parse_args()

    entries = [e for e in read_manifest(os.path.join(args.dir, "MANIFEST")) if args.only in e[0]]
    listed = {e[0] for e in entries}
    before = set(os.listdir(args.dir))
    if not args.only:
        unlisted = sorted(before - listed - {"MANIFEST"})
        if unlisted:
            print("FAIL not in MANIFEST: %s" % ", ".join(unlisted))
            return 1
    jobs = [(n, e, x, p, c) for n, e, x, p in entries for c in COMMANDS]
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_one, args, os.path.abspath(args.dctool), os.path.abspath(args.dir), *j)
                   for j in jobs]
        for fut in futures:
            r = fut.result()
            if r:
                print(r, flush=True)
                failures.append(r.split()[1])
    after = set(os.listdir(args.dir))
    if after != before:
        print("FAIL files appeared next to the inputs: %s" % ", ".join(sorted(after - before)))
        failures.append("(input directory)")
    failing = sorted(set(failures))
    print("hostile: %d files, %d runs, %d failed runs, %d failing files" % (len(entries), len(jobs),
                                                                            len(failures), len(failing)))
    if failing:
        print("failing files: " + " ".join(failing))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
