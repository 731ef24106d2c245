"""The report's 'Applications' section: what the demo's apps step
(bench/demo_apps.sh) wrote into DIR/apps/ (collx apps time: LAMMPS on the
emulated cluster), as `collx apps report` tables it: the collective
share, the bound it allows, native / tuned / online / oracle, and the
forced runs' correctness. The full runs: docs/results/apps/."""
import os

from collx.apps import report as apps_report
from collx.report.section import Section

TITLE = "Applications (LAMMPS from Debian, emulated cluster)"


def section(res):
    s = Section("Applications", TITLE)
    d = os.path.join(res, "apps")
    rows, times = apps_report.load(d) if os.path.isdir(d) else ([], [])
    if not times:
        s.ours = "not in this run (`./run demo` runs it: bench/demo_apps.sh)."
        s.body += ["The demo's apps step did not run or did not finish for this results "
                   "directory (it writes DIR/apps/). Three applications, two placements, "
                   "5 rounds each: `./run apps`, `docs/results/apps/`.", ""]
        return s
    apps_report.oracle_speedups(times, rows)
    heads = []
    for t in times:
        nat, tuned = t["summary"].get("native"), t["summary"].get("tuned")
        if nat and tuned:
            heads.append(f"{t['app']} ({t['placement']}, {t['share']:.0%} in collectives): "
                         f"native/tuned x{nat['median'] / tuned['median']:.3f} of the median, "
                         f"bound x{apps_report.share.bound(t['share'], t.get('oracle_coll_speedup') or 1):.3f}"
                         " at the oracle's collective speed-up")
    s.ours = "; ".join(heads) or "no finished timing"
    s.body += apps_report.table(times) + [""]
    counts, bad = apps_report.correctness(rows)
    for (app, where), c in sorted(counts.items()):
        s.body.append(f"- forced algorithms, {app} on {where}: " + ", ".join(
            f"{k} {v}" for k, v in sorted(c.items())))
    for r in bad:
        s.body.append(f"- not passed: {r['collective']}={r['algorithm']}: {r['status']} "
                      f"{r['worst']}")
    for app in sorted({t["app"] for t in times}):
        if os.path.exists(os.path.join(d, f"apps-{app}.png")):
            s.body += ["", f"![{app}](apps/apps-{app}.png)"]
    return s
