#!/usr/bin/env python3
"""Medians over rounds of ab.sh's rows: python3 summary.py FILE..."""
import collections, statistics, sys
d = collections.defaultdict(list)
for f in sys.argv[1:]:
    for line in open(f):
        _, build, alg, size, _, r, _, e = line.split()
        d[(build, alg, int(size))].append((float(r), float(e)))
print("| build | algorithm | bytes | r median (us) [range] | e median (us) |")
print("|---|---|---|---|---|")
for k in sorted(d):
    rs, es = [x[0] for x in d[k]], [x[1] for x in d[k]]
    print(f"| {k[0]} | {k[1]} | {k[2]} | {statistics.median(rs):.3f} [{min(rs):.2f}-{max(rs):.2f}] "
          f"| {statistics.median(es):.3f} |")
