"""The applications' report: DIR/report.md (correctness counts per
application and algorithm, the end-to-end table against the targets,
where collx's choice lost and to what), DIR/results.json and one plot
per application (DIR/apps-<app>.png: native, tuned, online, oracle and
the bound, per placement)."""
import glob
import json
import os

from collx import plotting
from collx.apps import correct, share, timing
from collx.tune import validate

TARGET_SHARE, TARGET_SPEEDUP = 0.25, 1.15


def correctness(rows):
    """{(app, where): {status: count}} and the rows that did not pass."""
    counts, bad = {}, []
    for r in rows:
        if not r["collective"]:
            continue
        k = (r["app"], r["where"])
        counts.setdefault(k, {})
        counts[k][r["status"]] = counts[k].get(r["status"], 0) + 1
        if r["status"] != "pass":
            bad.append(r)
    return counts, bad


def per_algorithm(rows):
    """{app: {collective: {algorithm: set of statuses}}}."""
    out = {}
    for r in rows:
        if r["collective"]:
            out.setdefault(r["app"], {}).setdefault(r["collective"], {}) \
               .setdefault(r["algorithm"], set()).add(r["status"])
    return out


def load(d):
    rows = []
    for path in sorted(glob.glob(os.path.join(d, "correct-*.csv"))):
        rows += correct.read_rows(path)
    for path in sorted(glob.glob(os.path.join(d, "time-*", "oracle.csv"))):
        rows += correct.read_rows(path)
    times = []
    for path in sorted(glob.glob(os.path.join(d, "time-*", "summary.json"))):
        with open(path) as f:
            times.append(json.load(f))
    return rows, times


def speedup(s, nat, key):
    return nat[key] / s[key] if s and nat and s.get(key) else None


def table(times):
    """Markdown lines of the end-to-end table and the family-wise test."""
    out = ["| application | placement | f (collectives) | bound s=oracle | bound s=inf "
           "| native median (min) s | tuned | online | oracle | tuned/native per round "
           "[95 %] | target |", "|" + "---|" * 11]
    ps = []
    for t in times:
        summ, f = t["summary"], t["share"]
        nat = summ.get("native")
        cells = []
        for c in ("tuned", "online", "oracle"):
            s = summ.get(c)
            up = speedup(s, nat, "median")
            cells.append(f"{s['median']:.2f} ({s['min']:.2f}): x{up:.3f}" if up else "-")
        r = (summ.get("tuned") or {}).get("ratio")
        if r:
            ps.append(r[3])
        s_or = t.get("oracle_coll_speedup") or 1.0
        up = speedup(summ.get("tuned"), nat, "median") or 0
        if f >= TARGET_SHARE:
            target = f"x{TARGET_SPEEDUP} wanted: " + ("met" if up >= TARGET_SPEEDUP else "missed")
        else:
            target = "not slower: " + ("met" if not r or r[1] <= 1 or r[3] > 0.05 else "slower")
        out.append(f"| {t['app']} | {t['placement']} | {f:.2f} | {share.bound(f, s_or):.3f} "
                   f"| {share.bound(f):.2f} | {nat['median']:.2f} ({nat['min']:.2f}) | "
                   + " | ".join(cells)
                   + (f" | {r[0]:.3f} [{r[1]:.3f}, {r[2]:.3f}] p={r[3]:.2g}" if r else " | -")
                   + f" | {target} |")
    out += ["", f"Tuned slower than native, family-wise 5 % (Holm) over {len(ps)} "
            f"application x placement pairs: {validate.holm(ps)} rejected."]
    return out


def coll_speedup(t, config):
    """native's time in collectives / config's (the untimed COLLX_STATS
    launches of timing.served_runs), or None."""
    got = (t.get("served") or {}).get(config)
    nat = t.get("native_coll_seconds")
    return nat / got["coll_seconds"] if got and nat and got["coll_seconds"] > 0 else None


def oracle_speedups(times, rows):
    """Each timing's collective speed-up s of the oracle: from its
    COLLX_STATS launch, else from the forced runs' (native's time in
    collectives / the oracle's)."""
    for t in times:
        if coll_speedup(t, "oracle"):
            t["oracle_coll_speedup"] = coll_speedup(t, "oracle")
            continue
        ref = next((r for r in rows if r["where"] == t["where"] and r["app"] == t["app"]
                    and r["size"] == "time" and r["algorithm"] == "native"), None)
        if not ref:
            continue
        nat = correct.coll_times(ref["dir"])
        total = sum(nat.values())
        best = total
        for c, a in t["oracle"].items():
            run = next((r for r in rows if r["where"] == t["where"] and r["app"] == t["app"]
                        and r["size"] == "time" and r["collective"] == c
                        and r["algorithm"] == a), None)
            if run:
                best -= nat.get(c, 0) - correct.coll_times(run["dir"]).get(c, nat.get(c, 0))
        t["oracle_coll_speedup"] = total / best if best > 0 else 1.0


def size_text(lo, hi):
    if lo is None or hi is None:   # v and w collectives: no one size
        return "any size"
    return f"{lo}-{hi} B" if hi is not None else f">= {lo} B"


def causes(times):
    """Per timing: the profile's heaviest points, what served each
    collective under tuned, online and the oracle (COLLX_STATS), and the
    time in collectives of each against native's."""
    out = []
    for t in times:
        out.append(f"**{t['app']}, {t['placement']}** (native: "
                   f"{t.get('native_coll_seconds', 0):.2f} s of {t['job_seconds']:.1f} s in "
                   "collectives, the average rank)")
        for p in t.get("profile_top", []):
            out.append(f"- {p['collective']} on {p['comm_size']} ranks ({p['nodes']} nodes x "
                       f"{p['ranks_per_node']}), {size_text(p['msg_lo'], p['msg_hi'])}: "
                       f"{p['calls']} calls, {p['seconds']:.2f} s")
        for c in ("loaded", "tuned", "online", "oracle"):
            got = (t.get("served") or {}).get(c)
            if not got:
                continue
            algs = {}
            for coll, alg, calls in got["served"]:
                algs.setdefault(coll, []).append(f"{alg} {calls}")
            sp = coll_speedup(t, c)
            out.append(f"- {c}: {got['coll_seconds']:.2f} s in collectives"
                       + (f" (s = {sp:.2f})" if sp else "") + "; served: "
                       + "; ".join(f"{coll}: {', '.join(v)}" for coll, v in sorted(algs.items())))
        out.append("")
    return out


def plot(t_app, path):
    plt = plotting.pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.6))
    configs = [c for c in timing.CONFIGS if any(c in t["summary"] for t in t_app)]
    width = 0.8 / max(len(t_app), 1)
    for i, t in enumerate(t_app):
        nat = t["summary"]["native"]["median"]
        xs = [j + i * width for j in range(len(configs))]
        med = [t["summary"].get(c, {}).get("median", 0) for c in configs]
        mins = [t["summary"].get(c, {}).get("min", 0) for c in configs]
        ax.bar(xs, med, width, label=f"{t['placement']}: median")
        ax.plot(xs, mins, "k_", markersize=12)
        bound_t = nat / share.bound(t["share"], t.get("oracle_coll_speedup") or 1.0)
        ax.hlines(bound_t, xs[0] - width / 2, xs[-1] + width / 2, colors="gray",
                  linestyles="dashed")
    ax.set_xticks([j + width * (len(t_app) - 1) / 2 for j in range(len(configs))])
    ax.set_xticklabels(configs)
    ax.set_ylabel("wall time, s")
    ax.set_title(f"{t_app[0]['app']}: median of the rounds (bars), min (black), "
                 "bound at the oracle's s (dashed)", fontsize=8)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(d):
    rows, times = load(d)
    oracle_speedups(times, rows)
    lines = ["# collx with real applications", "",
             f"Results folder: `{os.path.basename(os.path.abspath(d))}`.", ""]
    if times:
        lines += ["## End to end (emulated cluster)", "",
                  "Wall time of the launch, ABBA rounds; x = native's median / the "
                  "configuration's median. f: the average rank's share of the job in "
                  "collectives (COLLX_STATS, native run); bounds 1/(1-f+f/s) with s the "
                  "oracle's collective speed-up, and with s = infinity.", ""] + table(times)
        lines += ["", "Per collective (native run): "]
        for t in times:
            top = ", ".join(f"{c} {s:.2f} s ({x:.0%})" for c, s, x in t["by_collective"][:4])
            lines.append(f"- {t['app']} {t['placement']}: job {t['job_seconds']:.1f} s; "
                         f"{top}; oracle "
                         + (", ".join(f"{c}={a}" for c, a in sorted(t["oracle"].items()))
                            or "native everywhere"))
    if times:
        lines += ["", "## What ran, where the time went", ""] + causes(times)
    counts, bad = correctness(rows)
    lines += ["", "## Correct with every algorithm forced", "",
              "| application | where | pass | fail | error | timeout | unexercised |",
              "|---|---|---|---|---|---|---|"]
    for (app, where), c in sorted(counts.items()):
        lines.append(f"| {app} | {where} | " + " | ".join(
            str(c.get(s, 0)) for s in ("pass", "fail", "error", "timeout", "unexercised"))
            + " |")
    for app, colls in sorted(per_algorithm(rows).items()):
        lines += ["", f"{app}: " + "; ".join(
            f"{c}: " + ", ".join(f"{a}" + ("" if st == {"pass"} else
                                           f" ({'/'.join(sorted(st))})")
                                 for a, st in algs.items())
            for c, algs in sorted(colls.items()))]
    if bad:
        lines += ["", "Not passed:", ""] + [
            f"- {r['app']} {r['where']} {r['size']} {r['collective']}={r['algorithm']}: "
            f"{r['status']}: {r['worst']} {r['notes']}" for r in bad]
    by_app = {}
    for t in times:
        by_app.setdefault(t["app"], []).append(t)
    for app, ts in sorted(by_app.items()):
        try:
            plot(ts, os.path.join(d, f"apps-{app}.png"))
            lines += ["", f"![{app}](apps-{app}.png)"]
        except ImportError:
            pass
    with open(os.path.join(d, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump({"timings": times, "correctness": {f"{a} {w}": c
                                                     for (a, w), c in counts.items()}},
                  f, indent=1)
    print(os.path.join(d, "report.md"))
    return 0
