"""collx validate --mpi-file F --rules R: the MPI's own tuning file (what
collx tune --mpi-file wrote) and collx's rules decided against it, on
held-out points: the MPI's default decision vs its own tuned choice vs
collx's (R with F), per point and in geometric mean.

Each point is measured in --launches pairs of launches: one with the
MPI as it comes (native), one with only the MPI's file in the
environment (native = the MPI's tuned choice; selected = what collx's
rules R run there); both time the same labels, COLLX_RULES in both. Both launches also time the
tuner's yardstick (mpitune.yardstick: a collx algorithm that sends point
to point only), and times are taken relative to it per launch, so that a
launch's own offset cancels. Ratios between the two launches' kinds get
Welch's 95 % interval over the launches; collx against the tuned MPI,
timed in the same launch, a paired one. A point is slower beyond the
noise where its interval lies above 1.

In SMPI (SimGrid; the file: SMPI options, sim/run's SMPI_OPTIONS_FILE)
times are the same in every launch: one launch of each kind, no
yardstick, and a ratio is exact; slower beyond the noise there means by
more than the tuner's noise floor for SMPI (0.5 %)."""
import math
import os
import sys

from collx import mpifile
from collx.csvio import write_rows
from collx.tune import grid as gridmod, rules as rulesmod
from collx.tune.labels import NATIVE, interleaved
from collx.tune.mpitune import yardstick
from collx.tune.store import Stat, t95

SELECTED = "selected"


def welch(x, y):
    """exp(mean x - mean y) and its 95 % interval (Welch, the fewer
    samples' degrees of freedom), or None with fewer than 2 of either."""
    if len(x) < 2 or len(y) < 2:
        return None
    sx, sy = Stat(x, 0.0), Stat(y, 0.0)
    d = sx.mean - sy.mean
    se = math.sqrt(sx.se ** 2 + sy.se ** 2)
    h = t95(min(len(x), len(y)) - 1) * se
    return math.exp(d), math.exp(d - h), math.exp(d + h)


def paired(d):
    """exp(mean d) and its 95 % interval (Student's t) of per-launch log
    ratios, or None with fewer than 2."""
    if len(d) < 2:
        return None
    s = Stat(d, 0.0)
    h = t95(len(d) - 1) * s.se
    return math.exp(s.mean), math.exp(s.mean - h), math.exp(s.mean + h)


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def measure(t, a, coll, q, sizes, ref, env_mpi, rules_path):
    """{m: {"default": [ln T/T_ref], "tuned": [...], "collx": [...],
    "paired": [ln T_collx/T_tuned], "us": {kind: [us]}, "ran": {..}}}."""
    out = {m: {"default": [], "tuned": [], "collx": [], "paired": [],
               "us": {"default": [], "tuned": [], "collx": []}, "ran": set()} for m in sizes}
    for k in range(a.launches):
        for kind in (("default", "tuned") if k % 2 == 0 else ("tuned", "default")):
            # both kinds of launch time the same labels (a launch that also
            # runs collx's choices times its native apart from one that does
            # not: Open MPI, a file that changes nothing, 1.01-1.13 at
            # 12 B..3 KiB when only the tuned launch ran selected)
            labs = [NATIVE, SELECTED] + ([ref] if ref else [])
            env = {"COLLX_RULES": os.path.abspath(rules_path),
                   **(env_mpi if kind == "tuned" else {})}
            args = gridmod.comm_args(coll, q) + [
                "--algs", ",".join(interleaved(labs, a.reps, k)),
                "-m", ",".join(map(str, sizes)), "-i", str(a.iters), "-x", str(a.warmup)]
            rows, res = t.run_collbench(q, args, env=env, timeout=a.timeout,
                                        mem_limit=a.mem_limit)
            print(f"[validate] {coll} p={q}: {kind} launch {k + 1}/{a.launches} in "
                  f"{t.cost(res):.1f} s" + ("" if res.ok else f": failed: {res.why()}"),
                  file=sys.stderr, flush=True)
            by = {}
            for r in rows:
                by.setdefault(int(r["size_bytes"]), {}).setdefault(r["alg"], []).append(r)
            for m, d in by.items():
                mean = {lab: sum(float(r["median_us"]) for r in rs) / len(rs)
                        for lab, rs in d.items()}
                if NATIVE not in mean or (ref and ref not in mean):
                    continue
                base = mean[ref] if ref else 1.0
                o = out[m]
                o[kind].append(math.log(mean[NATIVE] / base))
                o["us"][kind].append(mean[NATIVE])
                if kind == "tuned" and SELECTED in mean:
                    o["collx"].append(math.log(mean[SELECTED] / base))
                    o["us"]["collx"].append(mean[SELECTED])
                    o["paired"].append(math.log(mean[SELECTED] / mean[NATIVE]))
                    o["ran"] |= {r["ran"] for r in d[SELECTED]}
    return out


def exact(x, y, tol):
    """A deterministic target's ratio exp(x - y) of one sample each, as
    an interval of +-tol (None without them)."""
    if len(x) != 1 or len(y) != 1:
        return None
    r = math.exp(x[0] - y[0])
    return r, r / (1 + tol), r * (1 + tol), "exact"


def fmt(iv):
    if iv and len(iv) > 3:   # exact (SMPI): the ratio alone
        return f"{iv[0]:.3f}"
    return f"{iv[0]:.3f} [{iv[1]:.3f}, {iv[2]:.3f}]" if iv else "n/a"


def row_of(coll, q, m, o, rules, ppn, tol=None):
    """tol: a deterministic target's (SMPI's) noise floor: exact ratios."""
    def us(kind):
        xs = o["us"][kind]
        return sum(xs) / len(xs) if xs else float("nan")
    if tol is not None:
        td, cd = exact(o["tuned"], o["default"], tol), exact(o["collx"], o["default"], tol)
        ct = exact(o["paired"], [0.0], tol)
    else:
        td, cd, ct = (welch(o["tuned"], o["default"]), welch(o["collx"], o["default"]),
                      paired(o["paired"]))
    want = rulesmod.match(rules, coll, q, m, ppn) or NATIVE
    return {"coll": coll, "p": q, "size_bytes": m, "default_us": f"{us('default'):.3f}",
            "mpi_tuned_us": f"{us('tuned'):.3f}", "collx_us": f"{us('collx'):.3f}",
            "collx_rule": want, "collx_ran": "+".join(sorted(o["ran"])),
            "tuned_over_default": fmt(td), "collx_over_default": fmt(cd),
            "collx_over_tuned": fmt(ct),
            "_td": td, "_cd": cd, "_ct": ct}


def summary(rows):
    out = []
    for coll in dict.fromkeys(r["coll"] for r in rows):
        rs = [r for r in rows if r["coll"] == coll]

        def col(key):
            return [r[key] for r in rs if r[key]]
        td, cd, ct = col("_td"), col("_cd"), col("_ct")
        out.append({"coll": coll, "points": len(rs),
                    "tuned_default": geomean([x[0] for x in td]),
                    "collx_default": geomean([x[0] for x in cd]),
                    "collx_tuned": geomean([x[0] for x in ct]),
                    "tuned_slower": sum(x[1] > 1 for x in td),
                    "collx_slower": sum(x[1] > 1 for x in cd),
                    "collx_slower_tuned": sum(x[1] > 1 for x in ct),
                    "worst_td": max((x[0] for x in td), default=float("nan")),
                    "worst_cd": max((x[0] for x in cd), default=float("nan"))})
    return out


def report(where, mpi_path, rules_path, a, rows, summ, ref):
    how = (f"{where}; one simulation of each kind per point (SMPI as sim/run sets it; "
           "SMPI with only its options file, and COLLX_RULES); simulated times, the same "
           f"in every run: exact ratios, slower beyond the noise by more than {a.tol:.1%}"
           if getattr(a, "tol", None) is not None else
           f"{where}; {a.launches} launch pairs per point (the MPI as it comes; the MPI "
           f"with only its tuning file, and COLLX_RULES), times relative to the "
           f"yardstick `{ref}` timed in every launch")
    lines = [f"# The MPI's own tuning ({mpi_path}) and collx's rules ({rules_path}) "
             "on held-out points", "",
             f"{how}; {a.reps} sample(s) of {a.iters} repetitions per launch.", "",
             "Default = the MPI's own decision; tuned = the MPI with its tuning file "
             "alone (no collx at run time); collx = collbench `--algs selected` with "
             "`COLLX_RULES` and the MPI's file (what `collxrun --rules` runs" +
             ("; in SMPI `SMPI_OPTIONS_FILE=F COLLX_RULES=R sim/run ...`). Exact ratios."
              if getattr(a, "tol", None) is not None else
              "). Ratios with 95 % intervals; slower beyond the noise: the interval above 1."),
             "",
             "| collective | points | tuned/default geomean (worst) | slower beyond noise | "
             "collx/default geomean (worst) | slower beyond noise | collx/tuned geomean | "
             "slower beyond noise |", "|---|---|---|---|---|---|---|---|"]
    for s in summ:
        lines.append(f"| {s['coll']} | {s['points']} | {s['tuned_default']:.3f} "
                     f"({s['worst_td']:.3f}) | {s['tuned_slower']} | {s['collx_default']:.3f} "
                     f"({s['worst_cd']:.3f}) | {s['collx_slower']} | {s['collx_tuned']:.3f} | "
                     f"{s['collx_slower_tuned']} |")
    lines += ["", "| collective | p | bytes | default us | tuned us | collx us (rule) | "
              "tuned/default | collx/default | collx/tuned |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['coll']} | {r['p']} | {r['size_bytes']} | {r['default_us']} | "
                     f"{r['mpi_tuned_us']} | {r['collx_us']} ({r['collx_rule']}) | "
                     f"{r['tuned_over_default']} | {r['collx_over_default']} | "
                     f"{r['collx_over_tuned']} |")
    return lines + [""]


def main(a, t, colls):
    """Validates a.mpi_file and a.rules[0] on target t for colls."""
    kind = mpifile.kind_of(a.mpi_file)
    if kind is None:
        raise SystemExit(f"validate: {a.mpi_file} is neither an Open MPI rules file, an "
                         "MPICH selection JSON, SMPI options nor Intel MPI's I_MPI_ADJUST_ "
                         "variables")
    if (kind == mpifile.SMPI) != (t.kind == "smpi"):
        raise SystemExit(f"validate: {a.mpi_file} is a {kind} file; this target is "
                         f"{t.describe()}")
    smpi = t.kind == "smpi"
    a.tol = (a.noise_floor if getattr(a, "noise_floor", None) is not None else 0.005) \
        if smpi else None
    env_mpi = mpifile.env_for(kind, a.mpi_file)
    rules_path = a.rules[0]
    rules = rulesmod.load(rules_path)
    comms = [int(x) for x in a.comm_sizes.split(",")] if a.comm_sizes else \
        (gridmod.held_out_comm_sizes(t.p, t.node) or [t.p])
    if a.held_out_sizes:
        sizes = [gridmod.parse_size(x) for x in a.held_out_sizes.split(",")]
    else:
        lo, hi = gridmod.parse_range(a.sizes)
        sizes = gridmod.held_out_sizes(lo, hi)[::a.size_step]
    rows = []
    for coll, algs in colls.items():
        ref = None if smpi else yardstick(algs)
        for q in comms:
            res = measure(t, a, coll, q, sizes, ref, env_mpi, rules_path)
            for m in sizes:
                rows.append(row_of(coll, q, m, res[m], rules, min(q, t.node or q), a.tol))
    summ = summary(rows)
    lines = report(t.describe(), a.mpi_file, rules_path, a, rows, summ,
                   ", ".join(f"{c}: {None if smpi else yardstick(x)}" for c, x in colls.items()))
    print("\n".join(lines))
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        keep = [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]
        write_rows(os.path.join(a.out, "validate_mpi.csv"), list(keep[0]) if keep else [], keep)
        with open(os.path.join(a.out, "validate_mpi.md"), "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0
