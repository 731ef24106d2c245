"""The tuner's report folder: report.md (the cost against the grid; the
budget's spend by communicator size and which grid points are measured
and which predicted; per collective the regret predicted and measured,
the rules and the grid points each serves, measured or predicted; with a
profile, its points), map_<coll>.png (the chosen algorithm over communicator size and
message size, measured points marked), measurements.csv (every sample),
decisions.csv (every grid point: choice, estimates, source) and tune.json
(everything, written by main)."""
import json
import math
import os

from collx.csvio import write_rows
from collx.plotting import pyplot
from collx.tune import grid as gridmod, profile
from collx.tune.decide import IGNORANT, RISK
from collx.tune.rules import inside


NONE = "not measured"   # a regret with no point to compute it at (no "nan")


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def num(x, fmt=".3f", none=NONE):
    """A number for a table, or what stands in for one that is missing."""
    return none if x is None else format(x, fmt)


def cell(text):
    """Text for a Markdown table cell: one line, no column separator."""
    return " ".join(str(text).split()).replace("|", "\\|")


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


def basis(store, dec, coll, q, m, choice):
    """What a grid point's choice rests on: "native alone" (no other
    algorithm measured there nor predicted with a known uncertainty: the
    rules run native for want of anything to compare), "at risk" (an
    algorithm not measured there may still beat the choice, decide.RISK:
    the budget ended first), "measured" (measured with alternatives: the
    choice, native and at least one other algorithm measured there, and
    every algorithm the model could not rule out), else "predicted" (the
    choice is the model's prediction, with its uncertainty, or native
    against predictions only). One meaning of "measured" in the report,
    the rules' evidence and `collx rules check` (issue 62: a Choices table
    said 60 of 60 points measured beside a spend table saying 8)."""
    ests = dec.estimates(coll, q, m)
    nat = ests.get("native")
    if not any(e.measured or (nat is not None and dec.diff_sigma(
            coll, a, e, "native", nat, q, m) < IGNORANT)
            for a, e in ests.items() if a != "native"):
        return "native alone"
    p, _ = dec.risk(coll, q, m, choice)
    if p > RISK:
        return "at risk"
    return "measured" if measured_with_alternatives(store, coll, q, m, choice, ests) \
        else "predicted"


def measured_with_alternatives(store, coll, q, m, choice, ests):
    """The choice, native and another algorithm were measured at the point."""
    return choice in ests and ests[choice].measured and store.usable(coll, "native", q, m) \
        and any(e.measured for a, e in ests.items() if a != "native")


def bases_of(store, dec, grids, choices):
    """{(key, q, m): basis} over every grid point."""
    return {(c, q, m): basis(store, dec, c, q, m, choices[c][(q, m)])
            for c, g in grids.items() for q, m in g.cells()}


BASES = ("measured", "predicted", "at risk", "native alone")


def rule_points(rules, grids, store, node):
    """({rule index: [(key, q, m)]}, {indices of rules between grid
    points}): the grid points each rule serves (the first that matches,
    as collx), and for a rule that serves none (a range between grid
    points: between.py) the grid points around it (the grid sizes inside
    its ranges, else the nearest on either side)."""
    out, between = {}, set()
    for c, g in grids.items():
        nd = gridmod.node_of(c, node)
        for q, m in g.cells():
            i = first_rule(rules, gridmod.coll_of(c), q, m, store.ppn.get((c, q), min(q, nd or q)))
            if i is not None:
                out.setdefault(i, []).append((c, q, m))
    for i, r in enumerate(rules):
        if i in out:
            continue
        for c, g in grids.items():
            if gridmod.coll_of(c) != r["collective"]:
                continue
            nd = gridmod.node_of(c, node)
            qs, ms = around(g.comms, r.get("comm_size")), around(g.sizes, r.get("msg_size"))
            pts = [(c, q, m) for q in qs for m in ms
                   if inside(r, "ranks_per_node", store.ppn.get((c, q), min(q, nd or q)))]
            if pts:
                out[i] = pts
                between.add(i)
                break
    return out, between


def around(values, rng):
    """The sorted grid values inside an inclusive range {min, max}, else
    the nearest below and above it."""
    lo, hi = (rng or {}).get("min", 0), (rng or {}).get("max", float("inf"))
    inner = [v for v in values if lo <= v <= hi]
    if inner:
        return inner
    return [v for v in (max((v for v in values if v < lo), default=None),
                        min((v for v in values if v > hi), default=None)) if v is not None]


def noise_of(dec, grids, choices):
    """{(key, q, m): [algorithms within the noise of the choice]}
    (decide.Decider.within_noise) over every grid point."""
    return {(c, q, m): dec.within_noise(c, q, m, choices[c][(q, m)])
            for c, g in grids.items() for q, m in g.cells()}


def evidence(rules, points, between, bases, store, runs, failed, noise=None):
    """The rules file's provenance "evidence": per rule, in the file's
    order, how many of its grid points rest on each basis (BASES: measured
    with alternatives, predicted, at risk, native alone; a rule between
    grid points: those around it) and at how many another algorithm is
    within the noise of the choice (noise: noise_of's answer), what was
    measured, and the runs that failed. `collx rules check` and the
    tuner's last lines say from it how much of a file rests on
    measurements: per class over the grid points, and per rule the share
    of its grid points measured (issue 62: "3 of 3 rules rest on measured
    points" of a file whose 20 grid points were half native alone)."""
    per = []
    for i, r in enumerate(rules):
        pts = [p for p in points.get(i, ()) if p in bases]
        got = [bases[p] for p in pts]
        tied = sum(bool((noise or {}).get(p)) for p in pts)
        per.append([got.count(b) for b in BASES] + [tied])
    return {"of": "grid points each rule serves (a rule between grid points: those around "
                  "it) by what its choice there rests on: measured (with alternatives: the "
                  "choice, native and another algorithm measured), predicted, at risk, "
                  "native alone; and those where another algorithm is within the noise",
            "fields": [b.replace(" ", "_") for b in BASES] + ["within_noise"],
            "rules": per,
            "between": sorted(between),
            "pairs_measured": store.pairs(), "runs": runs, "runs_failed": failed}


def rule_text(r, key, fmt=str):
    b = r.get(key)
    if not b:
        return "any"
    lo, hi = b.get("min"), b.get("max")
    if hi is None:
        return f"{fmt(lo)} and up"
    if lo is None:
        return f"up to {fmt(hi)}"
    return f"{fmt(lo)}..{fmt(hi)}" if lo != hi else fmt(hi)


def first_rule(rules, coll, q, m, rpn):
    """The index of the rule that serves (q, m) in rules (rules.c: the
    first match), or None."""
    for i, r in enumerate(rules):
        if r["collective"] == coll and inside(r, "comm_size", q) and \
                inside(r, "msg_size", m) and inside(r, "ranks_per_node", rpn):
            return i
    return None


def spend_by_size(grids, store, bases):
    """Rows of the budget's spend per communicator size: host seconds of
    the runs there, their share of all runs' cost, cases run, (algorithm,
    point) pairs measured, and the grid points whose choice rests on
    measurements, on predictions, still at risk."""
    comms = sorted({q for g in grids.values() for q in g.comms}, reverse=True)
    cost, cases = {}, {}
    for b in store.batches:
        cost[b["q"]] = cost.get(b["q"], 0.0) + b["cost"]
        cases[b["q"]] = cases.get(b["q"], 0) + b.get("cases", 0)
    total = sum(cost.values()) or 1.0
    rows = []
    for q in comms:
        pairs = sum(1 for (c, a, qq, _) in store.samples if qq == q)
        alts = sum(1 for (c, a, qq, _) in store.samples if qq == q and a != "native")
        got = [b for (c, qq, _), b in bases.items() if qq == q]
        rows.append({"q": q, "cost": cost.get(q, 0.0), "share": cost.get(q, 0.0) / total,
                     "cases": cases.get(q, 0), "pairs": pairs, "alts": alts,
                     "measured": got.count("measured"), "predicted": got.count("predicted"),
                     "risk": got.count("at risk"), "alone": got.count("native alone"),
                     "points": len(got)})
    return rows


def setup_text(lost):
    """ "binomial_topo: setup 0.93 s over 3 calls (0.265 of native per call)"
    of decide.Decider.lost_to_setup's answer."""
    a, us, n, ratio = lost
    return f"{a}: setup {us * 1e-6:.3g} s over {n:g} calls ({ratio:.3f} of native per call)"


def lost_to_setup(dec, grids, choices):
    """{(key, q, m): decide.Decider.lost_to_setup} at the points where an
    algorithm's setup over the profile's calls lost it the choice."""
    out = {}
    for c, g in grids.items():
        for q, m in g.cells():
            lost = dec.lost_to_setup(c, q, m, choices[c][(q, m)], g.sizes)
            if lost:
                out[(c, q, m)] = lost
    return out


def setup_lines(lost, choices):
    """report.md's lines on the choices lost to their setup, if any."""
    if not lost:
        return []
    return ["Lost to their setup on a new communicator (collbench's first call there "
            "minus its median, charged whole to each point's calls): where "
            "an algorithm faster per call was not chosen because its setup over the "
            "application's calls there outweighs its gain.", ""] + \
        [f"- {c} p={q} {size_label(m)}: {setup_text(x)}; chosen: {choices[c][(q, m)]}"
         for (c, q, m), x in sorted(lost.items())] + [""]


def profile_section(prof, grids, store, dec, choices, bases, algs, lost=None):
    """report.md's lines on a profile's points: each entry (the most time
    first), its share of the application's time in collectives, what was
    measured at its sizes and what the rules choose there, against
    native; then what the choices predict for that time, and the choices
    lost to their setup (lost: lost_to_setup)."""
    total = prof.seconds or 1.0
    skipped = {id(e): why for e, why in prof.skipped}
    lines = ["## The profile's points", "",
             f"Profile `{prof.path}`: " + ", ".join(
                 f"{k.replace('_', ' ')} {v}" for k, v in prof.job.items() if v is not None) +
             f"; {prof.seconds:.4g} s in collectives (the mean rank's: each entry's rank "
             "seconds over the job's ranks, which add up), of which the "
             f"points below measured: {100 * prof.measured_seconds() / total:.1f} %. Each "
             "entry is measured at the bounds of its message-size class (rounded to 4-byte "
             "elements), weighted by those seconds; its choice and time against native at "
             "each (measured, or predicted with the model's uncertainty: basis as in "
             "\"Spend by communicator size\"). A communicator of another shape than "
             "ranks 0..q-1 under block placement (nodes x ranks per node) was measured "
             "on collbench's `--comm-shape`. Where the entry counts its calls, every "
             "algorithm's time per call there includes its setup on a new communicator "
             "over those calls (the whole setup at each point).", "",
             "| collective | comm size | ranks per node | message bytes | calls | seconds | "
             "share | measured at | algorithms measured | choice | choice / native | basis |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    before = after = 0.0
    for e in sorted(prof.entries, key=lambda e: -e["time"]):
        line, ratio = profile_row(e, prof, grids, store, dec, choices, bases, algs, skipped,
                                  total)
        lines.append(line)
        if ratio is not None:   # measured: its time, and as the choices would make it
            before += e["time"]
            after += e["time"] * ratio
    lines += ["", f"The points measured took {before:.4g} s of the application's time as "
              f"it ran (native, where it ran without rules); with the rules' choices, their "
              f"times against native's (measured or predicted) give {after:.4g} s "
              f"({100 * (after / before - 1) if before else 0:+.1f} %): a prediction, to be "
              "checked by running the application with the rules.", ""]
    return lines + setup_lines(lost or {}, choices)


def profile_row(e, prof, grids, store, dec, choices, bases, algs, skipped, total):
    """(the profile section's row of entry e, the mean of the choices' times
    over native's at its sizes: 1.0 where none is known, None where e is
    not measured)."""
    c, q = prof.keys.get(id(e), e["collective"]), e["comm_size"]
    per = gridmod.per_node_of(c)
    msgs = f"{e['msg_lo']}..{e['msg_hi']}" if e["msg_hi"] is not None else "any"
    head = (f"| {e['collective']} | {q}{f' ({q // per}x{per})' if per else ''} | "
            f"{e.get('ranks_per_node', '')} | {msgs} | "
            f"{e.get('calls', '')} | {e['time']:.4g} | {100 * e['time'] / total:.1f} % |")
    if id(e) in skipped or c not in grids:
        return head + f" not measured: {skipped.get(id(e), 'not asked for')} | | | | |", None
    ms = profile.sizes_of(e)
    ratios = []
    cells = []
    for m in ms:
        ch = choices[c][(q, m)]
        ests = dec.estimates(c, q, m)
        r = math.exp(ests[ch].ln - ests["native"].ln) if ch in ests and \
            "native" in ests else None
        ratios.append(r)
        n = sum(store.usable(c, a, q, m) for a in algs[c])
        cells.append((m, ch, r, bases.get((c, q, m), ""), n))
    known = [r for r in ratios if r is not None]
    return (head + " " + ", ".join(size_label(m) for m, *_ in cells) + " | " +
            ", ".join(f"{n}/{len(algs[c])}" for *_, n in cells) + " | " +
            ", ".join(ch for _, ch, *_ in cells) + " | " +
            ", ".join("?" if r is None else f"{r:.3f}" for _, _, r, *_ in cells) +
            " | " + ", ".join(b for *_, b, _ in cells) + " |",
            sum(known) / len(known) if known else 1.0)


def write(out, meta, grids, store, dec, choices, rules, s, prof=None, rules_of=None,
          bases=None, noise=None):
    """rules: the file's, in order; rules_of: {key: its rules} (a shaped
    key's are its collective's too; default: by collective); bases:
    bases_of's answer (computed if not given). Writes measurements.csv,
    decisions.csv, the maps and report.md, section by section."""
    algs = meta["algs"]
    rules_of = rules_of or {c: [r for r in rules if r["collective"] == c] for c in grids}
    bases = bases or bases_of(store, dec, grids, choices)
    noise = noise if noise is not None else noise_of(dec, grids, choices)
    lost = lost_to_setup(dec, grids, choices)
    store.write_csv(os.path.join(out, "measurements.csv"))
    summary = decisions(out, grids, store, dec, choices, algs, rules_of, bases, noise, lost)
    failures = meta.get("failures") or {}
    lines = head_lines(meta, store, rules, grid_cost_estimate(s, grids, algs))
    if failures.get("runs"):
        lines += failures_section(failures)
    if meta.get("check"):
        lines += check_lines(meta["check"])
    if prof:
        lines += profile_section(prof, grids, store, dec, choices, bases, algs, lost)
    lines += spend_section(spend_by_size(grids, store, bases))
    lines += choices_section(summary)
    lines += rules_section(meta, grids, store, rules, rules_of, bases, noise)
    if store.failed:
        lines += unmeasured_section(store, failures)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def decisions(out, grids, store, dec, choices, algs, rules_of, bases, noise, lost):
    """Writes decisions.csv (a row per grid point: decision_row) and each
    collective's map (plot_map); returns the Choices table, a row per
    collective (summary_row)."""
    dec_rows = []
    summary = ["| collective | rules | grid points measured (with alternatives) / grid | "
               "predicted regret: geomean, worst | measured regret (points with every algorithm measured): geomean, "
               "worst, points | points where a collx algorithm is chosen | choices within "
               "the noise |",
               "|---|---|---|---|---|---|---|"]
    for c, g in grids.items():
        pred, meas, rows = [], [], []
        for q, m in g.cells():
            row, pr, mr = decision_row(store, dec, algs[c], c, q, m, choices[c][(q, m)],
                                       bases, noise, lost)
            rows.append(row)
            if pr:
                pred.append(pr)
            if mr:
                meas.append(mr)
        dec_rows += rows
        summary.append(summary_row(c, g, rows, pred, meas, len(rules_of.get(c, [])),
                                   choices[c], noise))
        plot_map(out, c, g, choices[c], store, algs[c])
    write_rows(os.path.join(out, "decisions.csv"), list(dec_rows[0]) if dec_rows else [],
               dec_rows)
    return summary


def decision_row(store, dec, algs, c, q, m, ch, bases, noise, lost):
    """(decisions.csv's row of the grid point (c, q, m) whose choice is
    ch, its predicted regret, its measured regret)."""
    ests = dec.estimates(c, q, m)
    pr = dec.predicted_regret(c, q, m, ch)
    mr = measured_regret(store, algs, c, q, m, ch)
    best = min(ests, key=lambda a: ests[a].ln) if ests else ""
    return {
        "coll": c, "p": q, "size_bytes": m, "choice": ch, "best_estimate": best,
        "choice_us": f"{ests[ch].us:.3f}" if ch in ests else "",
        "native_us": f"{ests['native'].us:.3f}" if "native" in ests else "",
        "best_us": f"{ests[best].us:.3f}" if best else "",
        "choice_source": "" if ch not in ests else
        ("measured" if ests[ch].measured else "model"),
        "basis": bases[(c, q, m)],
        "predicted_regret": f"{pr:.4f}" if pr else "",
        "measured_regret": f"{mr:.4f}" if mr else "",
        "within_noise": "+".join(noise[(c, q, m)]),
        "algs_measured": "+".join(a for a in algs if store.usable(c, a, q, m)),
        "calls": dec.calls.get((c, q, m), ""),   # a profile's: setups charged
        "choice_setup_us": f"{dec.setup(c, ch, q):.1f}" if (c, q, m) in dec.calls
        else "",
        "lost_to_setup": setup_text(lost[(c, q, m)]) if (c, q, m) in lost else ""}, pr, mr


def summary_row(c, g, rows, pred, meas, n_rules, choice, noise):
    """The Choices table's row of collective c from its decision rows and
    its regrets (pred, meas: where there is one)."""
    measured_cells = sum(r["basis"] == "measured" for r in rows)
    chosen = sum(r["choice"] != "native" for r in rows)
    tied = sum(bool(noise[(c, q, m)]) for q, m in g.cells())
    flips = sum(bool(noise[(c, q, m)]) and (choice[(q, m)] == "native" or
                                            "native" in noise[(c, q, m)])
                for q, m in g.cells())
    return (f"| {c} | {n_rules} | {measured_cells} / {len(g.cells())} | "
            f"{num(geomean(pred), none='no prediction')}, "
            f"{num(max(pred, default=None), none='no prediction')} | "
            f"{num(geomean(meas))}, {num(max(meas, default=None))}, {len(meas)} | "
            f"{chosen} of {len(g.cells())} | {tied} of {len(g.cells())}; of them native "
            f"against an algorithm: {flips} |")


def head_lines(meta, store, rules, grid_est):
    """report.md's title, what was run, and the Cost table (grid_est: the
    whole grid's cost, predicted: grid_cost_estimate)."""
    pairs = store.pairs()
    failures = meta.get("failures") or {}
    return [f"# Tuning: {meta['target']}", "",
            f"Command: `{meta['command']}`", "",
            f"Mode: {meta['mode']}; communicator sizes {meta['comm_sizes']}; sizes "
            f"{meta['sizes'][0]}..{meta['sizes'][1]} B per rank (powers of two); "
            f"{meta['reps']} sample(s) per point of {meta['iters']} timed repetitions "
            f"after {meta['warmup']} warm-up(s); margin {meta['margin']:.0%}. "
            f"Rules: `{meta['rules']}` ({len(rules)} rules)." +
            (f" Sampling stopped early: {meta['stopped']}." if meta["stopped"] else ""), "",
            "## Cost", ""] + table_rows([
                f"| cost spent ({'host CPU' if meta['kind'] != 'real' else 'wall'} seconds) "
                f"| {meta['spent_s']:.1f} |",
                f"| of which the tuner's own CPU (fits, choices) | {meta['own_cpu_s']:.1f} |"
                if meta["kind"] != "real" else None,
                f"| budget | {meta['budget'] or 'none'} |",
                f"| wall time of the whole run | {meta['wall_s']:.0f} s |",
                f"| batches (collbench runs) | {len(store.batches)} |",
                f"| runs that failed | {failures.get('runs', 0)} |",
                f"| (algorithm, point) pairs measured / whole grid | {pairs} / "
                f"{meta['grid_pairs']} ({100 * pairs / meta['grid_pairs']:.1f} %); "
                f"{store.cases()} samples |",
                f"| whole grid's cost, predicted from the cases measured | "
                f"{grid_est:.0f} s (spent: {100 * meta['spent_s'] / grid_est:.0f} %) |"
                if grid_est else "| whole grid's cost | unknown |",
                f"| points that could not be measured | {len(store.failed)} |"]) + [""]


def check_lines(ck):
    """report.md's line on the check of the rules in collbench."""
    return [f"Check (collbench `--algs selected` with `COLLX_RULES`): "
            f"{ck['points']} points, " +
            ("column ran agrees with the rules everywhere." if not ck["mismatches"]
             else "disagreements: " + "; ".join(ck["mismatches"])), ""]


def spend_section(spend):
    """report.md's "Spend by communicator size" (spend: spend_by_size)."""
    lines = ["## Spend by communicator size", "",
             "Where the budget went: host seconds of the runs at each communicator size "
             "(their share of all runs' cost; the tuner's own CPU is not in it), cases "
             "run, (algorithm, point) pairs measured (of them, algorithms other than "
             "native), and the grid points (all collectives) whose choice rests on "
             "measurements (measured with alternatives: the choice, native and another "
             "algorithm measured there, and every algorithm the model could not rule "
             "out; the one meaning of \"measured\" in this report), on the model's "
             "prediction with its "
             "uncertainty, or still at risk (an algorithm not measured there may beat "
             "the choice by more than 3 % with a probability above 5 %: where the budget "
             "ended), or native alone (no other algorithm measured there nor predicted "
             "with a known uncertainty: native for want of a comparison). A prediction "
             "replaces native only when faster beyond its uncertainty.", "",
             "| communicator size | host s | share | cases | pairs measured (not native) "
             "| grid points | measured | predicted | at risk | native alone |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['q']} | {r['cost']:.1f} | {100 * r['share']:.1f} % | {r['cases']} | "
              f"{r['pairs']} ({r['alts']}) | {r['points']} | {r['measured']} | "
              f"{r['predicted']} | {r['risk']} | {r['alone']} |" for r in spend]
    lines.append("")
    return lines


def choices_section(summary):
    """report.md's "Choices": what the columns say, then the table, a row
    per collective (decisions)."""
    return ["## Choices", "",
            "Predicted regret: T(choice) / the fastest estimate at each grid point "
            "(measured where measured, else the model's prediction; a prediction "
            "with no measured points around it to say how wrong it may be is left "
            "out). Measured regret: "
            "the same where every algorithm was measured (\"not measured\": at no "
            "point). Grid points measured: as in the spend table (with "
            "alternatives). Choices within the noise: grid points where another "
            "tuning run could choose otherwise (native chosen where "
            "an algorithm measured faster by the margin has no evidence beyond the "
            "noise in every repeat; an algorithm chosen where another with evidence "
            "is not slower beyond the noise).", ""] + summary + [""]


def rules_section(meta, grids, store, rules, rules_of, bases, noise):
    """report.md's section per collective: its map and its rules, each
    with the grid points it serves by basis (rule_row)."""
    index = {id(r): i for i, r in enumerate(rules)}
    points, between = rule_points(rules, grids, store, meta["node"])
    lines = []
    for c in grids:
        lines += [f"### {c}", "", f"![{c}](map_{c}.png)", "",
                  "Its rules (`" + meta["rules"] + "`), in order, the grid points each "
                  "serves by what their choice rests on (above; a rule between grid points, "
                  "marked *between*: those around it), and the algorithms within the noise "
                  "of its choice (at how many of those points): what another run could "
                  "choose there.", "",
                  "| comm_size | msg_size | ranks_per_node | algorithm | candidates | "
                  "grid points: measured | predicted | at risk | native alone | "
                  "within the noise |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        lines += [rule_row(r, index[id(r)], points, between, bases, noise)
                  for r in rules_of.get(c, [])]
        lines.append("")
    return lines


def rule_row(r, i, points, between, bases, noise):
    """The row of rule r (the file's i-th) in its collective's table."""
    got = [bases[p] for p in points.get(i, ())]
    alg = r["algorithm"] + (f" {json.dumps(r['params'])}" if r.get("params") else "")
    tied = {}
    for p in points.get(i, ()) if i not in between else ():
        for a in noise.get(p, ()):
            tied[a] = tied.get(a, 0) + 1
    return (f"| {rule_text(r, 'comm_size')} | {rule_text(r, 'msg_size', size_label)}"
            f" | {rule_text(r, 'ranks_per_node')} | {cell(alg)}"
            f"{' *between*' if i in between else ''} | "
            f"{', '.join(r.get('candidates', []))} | " +
            " | ".join(str(got.count(b)) for b in BASES) + " | " +
            ", ".join(f"{a} ({n})" for a, n in sorted(tied.items(),
                                                      key=lambda x: -x[1])) + " |")


def unmeasured_section(store, failures):
    """report.md's "Points that could not be measured", and why."""
    return ["## Points that could not be measured", "",
            "Why: the gist of the run's message" +
            (" (the first failed run's whole message: \"Runs that failed\", above)."
             if failures.get("runs") else "."), "",
            "| collective | algorithm | p | bytes | why |", "|---|---|---|---|---|"] + \
        [f"| {c} | {cell(a)} | {q} | {m} | {cell(w)} |"
         for (c, a, q, m), w in sorted(store.failed.items())] + [""]


def table_rows(rows, head=("| | value |", "|---|---|")):
    """A Markdown table of the rows given (None: a row left out; a blank
    line in a table ends it: issue 62's broken cost table)."""
    return list(head) + [r for r in rows if r]


def failures_section(failures):
    """report.md's lines on the runs that failed: how many, the first
    one's whole message, the gists of the other kinds."""
    out = ["## Runs that failed", "",
           f"{failures['runs']} of {failures['of']} collbench runs failed; the cases each "
           "finished count, the case it was in is listed under \"Points that could not be "
           "measured\" (below) and the rest ran again. The first failed run "
           f"({failures['first_where']}), whole:", "", "```", failures["first"], "```", ""]
    if failures.get("others"):
        out += ["Other failures (their gist; `tune.json` has every run):", ""] + \
            [f"- {cell(w)}" for w in failures["others"]] + [""]
    return out


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
