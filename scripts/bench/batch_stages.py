#!/usr/bin/python3
"""Where a batch's time goes: per-stage medians over the entries of `dctool compress --report` files.

  batch_stages.py REPORT.json [MORE.json ...]

For each stage of timing_ms (in report order): the median over all entries of all reports (ms per entry),
and its share of the median entry's busy time (the stages without the queue waits and total). A stage shared by
an input's qualities (read) is counted once per input.
"""
import json
import statistics
import sys


def main():
    per, order = {}, []
    for path in sys.argv[1:]:
        data = json.load(open(path))
        seen_inputs = set()
        for e in data if isinstance(data, list) else [data]:
            if "error" in e:
                continue
            for k, v in e["timing_ms"].items():
                if k == "read":
                    if e["input"] in seen_inputs:
                        continue
                    seen_inputs.add(e["input"])
                if k not in per:
                    per[k] = []
                    order.append(k)
                per[k].append(v)
    if not per:
        sys.exit("batch_stages.py: no entries")
    med = {k: statistics.median(v) for k, v in per.items()}
    busy = sum(m for k, m in med.items() if k != "total" and not k.startswith("queue"))
    print("%-12s %10s %7s" % ("stage", "median_ms", "share"))
    for k in order:
        share = "" if k == "total" or k.startswith("queue") else "%5.1f%%" % (100 * med[k] / busy)
        print("%-12s %10.1f %7s" % (k, med[k], share))
    print("%-12s %10.1f" % ("busy (sum)", busy))


if __name__ == "__main__":
    main()
