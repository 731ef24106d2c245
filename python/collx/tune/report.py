"""The tuner's report folder: report.md (per collective: the rules, the
regret predicted and measured, the points measured; the cost against the
grid), map_<coll>.png (the chosen algorithm over communicator size and
message size, measured points marked), measurements.csv (every sample),
decisions.csv (every grid point: choice, estimates, source) and tune.json
(everything, written by main)."""
import json
import math
import os

from collx.csvio import write_rows
from collx.plotting import pyplot


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def measured_regret(store, algs, coll, q, m, choice):
    """T(choice) / best T where every algorithm that can serve the point
    was measured there (None elsewhere)."""
    times = {}
    for a in algs:
        if store.cannot(coll, a, q, m):
            continue
        if not store.usable(coll, a, q, m):
            return None
        times[a] = store.stat(coll, a, q, m).mean
    if choice not in times:
        return None
    return times[choice] / min(times.values())


def grid_cost_estimate(s, grids, algs):
    """Cost of measuring the whole grid, one run per collective and
    communicator size, predicted by the cost model (cost.py) from the
    cases measured."""
    total = 0.0
    for c, g in grids.items():
        s.cost.refit(c)
        total += sum(s.cost.batch(c, q, algs[c], g.sizes) for q in g.comms)
    return total


def write(out, meta, grids, store, dec, choices, rules, s):
    algs = meta["algs"]
    dec_rows, lines = [], []
    store.write_csv(os.path.join(out, "measurements.csv"))
    summary = ["| collective | rules | points measured / grid | predicted regret: geomean, "
               "worst | measured regret (points with every algorithm measured): geomean, "
               "worst, points | points where a collx algorithm is chosen |",
               "|---|---|---|---|---|---|"]
    for c, g in grids.items():
        pred, meas, measured_cells, chosen = [], [], 0, 0
        for q, m in g.cells():
            ch = choices[c][(q, m)]
            ests = dec.estimates(c, q, m)
            pr = dec.predicted_regret(c, q, m, ch)
            mr = measured_regret(store, algs[c], c, q, m, ch)
            if pr:
                pred.append(pr)
            if mr:
                meas.append(mr)
            any_measured = any(store.usable(c, a, q, m) for a in algs[c])
            measured_cells += any_measured
            chosen += ch != "native"
            best = min(ests, key=lambda a: ests[a].ln) if ests else ""
            dec_rows.append({
                "coll": c, "p": q, "size_bytes": m, "choice": ch, "best_estimate": best,
                "choice_us": f"{ests[ch].us:.3f}" if ch in ests else "",
                "native_us": f"{ests['native'].us:.3f}" if "native" in ests else "",
                "best_us": f"{ests[best].us:.3f}" if best else "",
                "choice_source": "" if ch not in ests else
                ("measured" if ests[ch].measured else "model"),
                "predicted_regret": f"{pr:.4f}" if pr else "",
                "measured_regret": f"{mr:.4f}" if mr else "",
                "algs_measured": "+".join(a for a in algs[c] if store.usable(c, a, q, m))})
        n_rules = sum(1 for r in rules if r["collective"] == c)
        summary.append(
            f"| {c} | {n_rules} | {measured_cells} / {len(g.cells())} | "
            f"{geomean(pred):.3f}, {max(pred, default=float('nan')):.3f} | "
            f"{geomean(meas):.3f}, {max(meas, default=float('nan')):.3f}, {len(meas)} | "
            f"{chosen} of {len(g.cells())} |")
        plot_map(out, c, g, choices[c], store, algs[c])
    write_rows(os.path.join(out, "decisions.csv"), list(dec_rows[0]) if dec_rows else [],
               dec_rows)
    cost, grid_est = store.cost(), grid_cost_estimate(s, grids, algs)
    pairs = store.pairs()
    lines += [f"# Tuning: {meta['target']}", "",
              f"Command: `{meta['command']}`", "",
              f"Mode: {meta['mode']}; communicator sizes {meta['comm_sizes']}; sizes "
              f"{meta['sizes'][0]}..{meta['sizes'][1]} B per rank (powers of two); "
              f"{meta['reps']} sample(s) per point of {meta['iters']} timed repetitions "
              f"after {meta['warmup']} warm-up(s); margin {meta['margin']:.0%}. "
              f"Rules: `{meta['rules']}` ({len(rules)} rules)." +
              (f" Sampling stopped early: {meta['stopped']}." if meta["stopped"] else ""), "",
              "## Cost", "",
              "| | value |", "|---|---|",
              f"| cost spent ({'host CPU' if meta['kind'] != 'real' else 'wall'} seconds) | "
              f"{meta['spent_s']:.1f} |",
              f"| of which the tuner's own CPU (fits, choices) | {meta['own_cpu_s']:.1f} |"
              if meta["kind"] != "real" else "",
              f"| budget | {meta['budget'] or 'none'} |",
              f"| wall time of the whole run | {meta['wall_s']:.0f} s |",
              f"| batches (collbench runs) | {len(store.batches)} |",
              f"| (algorithm, point) pairs measured / whole grid | {pairs} / "
              f"{meta['grid_pairs']} ({100 * pairs / meta['grid_pairs']:.1f} %); "
              f"{store.cases()} samples |",
              f"| whole grid's cost, predicted from the cases measured (cost.py) | "
              f"{grid_est:.0f} s (spent: {100 * meta['spent_s'] / grid_est:.0f} %) |"
              if grid_est else "| whole grid's cost | unknown |",
              f"| points that could not be measured | {len(store.failed)} |", ""]
    if meta.get("check"):
        ck = meta["check"]
        lines += [f"Check (collbench `--algs selected` with `COLLX_RULES`): "
                  f"{ck['points']} points, " +
                  ("column ran agrees with the rules everywhere." if not ck["mismatches"]
                   else "disagreements: " + "; ".join(ck["mismatches"])), ""]
    lines += ["## Choices", "",
              "Predicted regret: T(choice) / the fastest estimate at each grid point "
              "(measured where measured, else the model's prediction; a prediction "
              "with no measured points around it to say how wrong it may be is left "
              "out). Measured regret: "
              "the same where every algorithm was measured.", ""] + summary + [""]
    for c in grids:
        lines += [f"### {c}", "", f"![{c}](map_{c}.png)", "", "```json"] + \
            [json.dumps(r) for r in rules if r["collective"] == c] + ["```", ""]
    if store.failed:
        lines += ["## Points that could not be measured", "", "| collective | algorithm | p | "
                  "bytes | why |", "|---|---|---|---|---|"]
        lines += [f"| {c} | {a} | {q} | {m} | {w} |"
                  for (c, a, q, m), w in sorted(store.failed.items())]
        lines.append("")
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def plot_map(out, coll, g, choice, store, algs):
    """The chosen algorithm per grid point; dots: points where some
    algorithm was measured, circles: where every one was."""
    try:
        plt = pyplot()
    except ImportError:
        return
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch
    names = [a for a in algs if any(v == a for v in choice.values())]
    idx = {a: i for i, a in enumerate(names)}
    colors = ["#dddddd" if a == "native" else f"C{i % 10}" for i, a in enumerate(names)]
    z = [[idx[choice[(q, m)]] for m in g.sizes] for q in g.comms]
    fig, ax = plt.subplots(figsize=(max(4, 0.45 * len(g.sizes) + 2.5),
                                    max(2.5, 0.4 * len(g.comms) + 1.5)))
    ax.imshow(z, cmap=ListedColormap(colors), vmin=-0.5, vmax=len(names) - 0.5,
              aspect="auto", origin="lower")
    for i, q in enumerate(g.comms):
        for j, m in enumerate(g.sizes):
            n = sum(store.usable(coll, a, q, m) for a in algs)
            if n:
                ax.plot(j, i, "o" if n == len(algs) else ".", color="k", ms=5 if n ==
                        len(algs) else 3, mfc="none" if n == len(algs) else "k")
    ax.set_xticks(range(len(g.sizes)))
    ax.set_xticklabels([size_label(m) for m in g.sizes], rotation=90, fontsize=7)
    ax.set_yticks(range(len(g.comms)))
    ax.set_yticklabels(g.comms, fontsize=7)
    ax.set_xlabel("bytes per rank")
    ax.set_ylabel("communicator size")
    ax.set_title(f"{coll}: chosen algorithm", fontsize=9)
    ax.legend(handles=[Patch(color=c, label=a) for a, c in zip(names, colors)],
              fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    fig.savefig(os.path.join(out, f"map_{coll}.png"), dpi=100)
    plt.close(fig)


def size_label(m):
    for unit, k in (("M", 1 << 20), ("K", 1 << 10)):
        if m >= k and m % k == 0:
            return f"{m // k}{unit}"
    return str(m)
