"""A collbench sweep as one table (rows = size or problem/b, columns =
coll/alg, the fastest in bold) and its figure: any sweep_* or real/*.csv of
the demo, so new algorithms and new sweeps appear without changes here."""
import os

from collx.plots import demo as figures
from collx.tables import fmt


def pivot(rows, metric="t", stat="min_us"):
    """(keys, cols, val): keys = sizes (or (problem, b)) in file order,
    cols = 'coll/alg' in file order, val[(key, col)] = the statistic in us."""
    rows = [r for r in rows if r["kind"] == "time" and r["metric"] == metric]
    if not rows:
        return [], [], {}
    sized = bool(rows[0]["size_bytes"])
    keys, cols, val = [], [], {}
    for r in rows:
        k = int(r["size_bytes"]) if sized else (r["problem"], int(r["b"]))
        c = f"{r['coll']}/{r['alg']}"
        keys += [k] if k not in keys else []
        cols += [c] if c not in cols else []
        val[(k, c)] = float(r[stat])
    return keys, cols, val


def fastest(cols, val, k):
    """The column with the smallest value at key k."""
    return min((c for c in cols if val.get((k, c)) is not None), key=lambda c: val[(k, c)])


def table(rows, title, out, figdir, name, metric="t", stat="min_us", level=3):
    """Appends the heading 'title' (at level), the table and the figure (figdir/name.png) to
    out; returns a line naming the fastest at the smallest and largest size,
    or None when the file has no rows of the metric."""
    keys, cols, val = pivot(rows, metric, stat)
    if not keys:
        return None
    r0 = next(r for r in rows if r["kind"] == "time" and r["metric"] == metric)
    out.append("#" * level + f" {title}")
    out.append("")
    out.append(f"{r0['platform']}, p = {r0['p']} ({r0['ppn']} per node), {r0['warmup']} warm-up + "
               f"{r0['iters']} repetitions; {metric} ({stat.replace('_us', '')} over repetitions) in us"
               + (f", arrival delays uniform in [0, {r0['max_delay_ms']} ms]" if float(r0["max_delay_ms"]) else "") + ".")
    out.append("")
    out.append("| size (B) | " + " | ".join(cols) + " |")
    out.append("|---|" + "---|" * len(cols))
    for k in keys:
        vs = [val.get((k, c)) for c in cols]
        best = min(v for v in vs if v is not None)
        marked = [("**" + fmt(v) + "**") if v == best and len(cols) > 1 else fmt(v) for v in vs]
        out.append(f"| {k if not isinstance(k, tuple) else '%s b=%d' % k} | " + " | ".join(marked) + " |")
    out.append("")
    lo, hi = keys[0], keys[-1]
    best = [fastest(cols, val, k) for k in (lo, hi)]
    line = (f"{title} (p={r0['p']}): fastest at {lo} B: {best[0]} ({fmt(val[(lo, best[0])])} us), "
            f"at {hi} B: {best[1]} ({fmt(val[(hi, best[1])])} us)")
    if not isinstance(keys[0], tuple) and len(keys) > 1:
        figures.sweep(keys, cols, val, title, metric, os.path.join(figdir, name + ".png"))
        out.append(f"![{title}]({name}.png)")
        out.append("")
    return line
