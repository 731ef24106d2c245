"""Checks of the report's 'Measured selection (tuner)' section against the
tuner's own files in a results directory (DIR/tune/tuned/tune.json and
rules.json, DIR/tune/validate/validate.csv), recomputed here from those
files, not from the report's code: used by python.report (the committed
docs/results/tune/ run) and tune.demo (a tiny real tune step)."""
import csv
import json
import math
import os
import re

HEAD = "## Measured selection (tuner)"


def section_text(text):
    m = re.search(r"^## Measured selection \(tuner\)\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    return m.group(1) if m else None


def summary_line(text):
    return next((ln for ln in text.splitlines()
                 if ln.startswith("- **Measured selection (tuner)**")), "")


def check_full(name, text, res, expect):
    """A tune and a validation present: the headline's and the table's
    ratios are validate.csv's, the rules table has every rule, the cost is
    tune.json's, the pointers are there."""
    sec = section_text(text)
    expect(sec is not None, f"{name}: a '{HEAD}' section")
    if sec is None:
        return
    d = os.path.join(res, "tune")
    tuned = json.load(open(os.path.join(d, "tuned", "tune.json")))
    rules = json.load(open(os.path.join(d, "tuned", "rules.json")))["rules"]
    rows = [r for r in csv.DictReader(open(os.path.join(d, "validate", "validate.csv")))
            if r["rules"] == tuned["rules"]]
    expect(rows, f"{name}: validate.csv has rows of the rules tune.json names")
    for coll in tuned["colls"]:
        rs = [r for r in rows if r["coll"] == coll]
        to = [float(r["tuned_over_oracle"]) for r in rs]
        tn = [float(r["tuned_over_native"]) for r in rs]
        geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))  # noqa: E731
        want = (f"{coll} tuned/oracle {geo(to):.3f} (worst {max(to):.2f}), "
                f"tuned/native {geo(tn):.3f} (worst {max(tn):.2f})")
        expect(want in summary_line(text) and want in sec,
               f"{name}: headline and Summary give {want}")
        row = re.search(rf"^\| {coll} \| {len(rs)} \| (\d+) \| {geo(to):.3f}[^|]* \| "
                        rf"{max(to):.3f} \(p=\d+, [^)]+\)[^|]* \| {geo(tn):.3f} \| "
                        rf"{max(tn):.3f} ", sec, flags=re.M)
        expect(row is not None and int(row.group(1)) == sum(r["rule"] != "native" for r in rs),
               f"{name}: validation row of {coll} ({len(rs)} points)")
    expect(f"| {tuned['spent_s']:.1f} (" in sec and f"budget {tuned['budget']}" in sec,
           f"{name}: the tuning cost ({tuned['spent_s']:.1f} host s, budget {tuned['budget']})")
    part = sec.split("### The rules chosen", 1)[-1].split("###", 1)[0]
    table = [ln for ln in part.splitlines() if ln.startswith("| ")][1:]   # no header
    segs = sum(ln.split("|")[3].count("·") + 1 for ln in table)
    expect(segs == len(rules), f"{name}: the rules table shows every rule ({segs} of "
           f"{len(rules)})")
    expect("docs/results/tune/" in sec and "](tune/tuned/report.md)" in sec and
           "](tune/validate/validate.md)" in sec,
           f"{name}: points to tune/tuned/report.md, tune/validate/validate.md and "
           "docs/results/tune/")
    maps = [c for c in tuned["colls"] if os.path.exists(os.path.join(d, "tuned", f"map_{c}.png"))]
    expect(all(f"](tune/tuned/map_{c}.png)" in sec for c in maps),
           f"{name}: the maps ({', '.join(maps)})")


def check_not_shown(name, text, words, expect):
    """A step skipped or failed, or no tune directory: the section and its
    Summary line say so (every one of words in the section, the first in
    the Summary line) and show no ratios."""
    sec = section_text(text) or ""
    line = summary_line(text)
    expect(all(w in sec for w in words) and words[0] in line and "tuned/oracle" not in line,
           f"{name}: the section says {words} and shows no ratios")
