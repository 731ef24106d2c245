"""collx validate (./run tune validate in a checkout): a rules file
against held-out points. Its --help is DESCRIPTION, for a user of an
installed collx; this docstring is the design.

At communicator sizes and message sizes the tuner's grid does not contain
(grid.held_out_*: off the grid, between grid points), collbench runs, per
collective and communicator size, `selected` (COLLX_RULES = the rules:
what the rules choose, column ran saying what served) in a run of its own,
as a program with the rules runs (on a real MPI in native's run: launches
differ), and every registered algorithm forced,
native included, in one run (those that leave work behind in the process,
labels.runs, each in a run of its own). Per point:

    tuned / oracle   (oracle: the fastest algorithm that served itself)
    tuned / native

and per collective their geometric mean and worst, beside the targets
(tuned within 5 % of the oracle in geometric mean, never more than 25 %
off, never more than 10 % slower than native). A point where column ran
is not what the rules say (nor its fallback's) is listed: the rules did
not load or did not match as written.

With --profile the times compared are per call with each algorithm's
setup on a new communicator (collbench's first call there minus its
median) charged over the profile point's calls, as the tuner chose
(decide.Decider.charge, the same code): an algorithm faster per call
whose setup outweighs that over 4 calls is no oracle there. The
steady-state ratios stand beside them (columns steady_*); without a
profile, or for a profile without calls, the two are the same.

    ./run tune validate --rules rules.json --platform ib-6x8 -n 32 \\
        --colls allreduce,bcast --out results/tune/validate
"""
import argparse
import hashlib
import json
import math
import os
import sys
import time

from collx.csvio import write_rows
from collx.tune import grid as gridmod, mpivalidate, profile as profmod, rules as rulesmod
from collx.tune import store
from collx.tune.decide import Decider
from collx.tune.labels import interleaved, runs, same_alg
from collx.tune.options import make_target, registry, target_args
from collx.tune.store import Stat, t_upper

TARGETS = {"geomean_oracle": 1.05, "worst_oracle": 1.25, "worst_native": 1.10}

# `collx validate --help`: for a user of an installed collx (issue 62: it
# said `collx tune validate`, ./run and an SMPI example)
DESCRIPTION = """\
Measures a rules file (collx tune's) at points the tuner did not measure:
communicator sizes and message sizes between its grid's. At each, collbench
runs the rules' choice (COLLX_RULES) and every algorithm, native included,
and says per collective how the rules' time compares with the fastest
algorithm there (the oracle) and with native, against the targets (within
5 % of the oracle in geometric mean, never more than 25 % off, never more
than 10 % slower than native), and every point where collx did not run what
the rules say.

  collx validate --rules rules.json --launch "mpirun -np 4" \\
                 --colls allreduce,bcast --out validate-report
  collx validate --rules rules.json --launch "mpirun -np 4" --algs native \\
                 --launches 5 --out validate-report   # the rules against native only

--launch takes the launcher words the application runs with, as for collx
tune. On a real MPI --launches K measures each point in K launches and the
report says where the rules are slower than native beyond the noise. The
report: DIR/validate.md, validate.csv, validate.json (--from validate.json
evaluates another rules file without measuring).

Exit status: 0 measured and written; 1 where collx did not run what the rules
say; another non-zero status, with a message, when a rules file cannot be
read or nothing could be measured.

Manual: man collx-tune (section VALIDATE)."""


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="collx validate", description=DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    target_args(ap)
    ap.add_argument("--rules", required=True, action="append",
                    help="a rules file to validate (repeat for several: every algorithm "
                    "is measured once, each file's choice on its own)")
    ap.add_argument("--no-params", action="store_true",
                    help="leave out the algorithms' variants with per-call knobs set")
    ap.add_argument("--sizes", default="8:4194304",
                    help="MIN:MAX of the tuning: held-out sizes 3*2^j between (default 8:4194304)")
    ap.add_argument("--held-out-sizes", help="bytes per rank, comma-separated (default: "
                    "3*2^j within --sizes, every --size-step'th)")
    ap.add_argument("--size-step", type=int, default=2,
                    help="use every k-th held-out size (default 2)")
    ap.add_argument("--comm-sizes", help="communicator sizes, comma-separated (default: "
                    "sizes between the tuner's grid sizes, man collx-tune)")
    ap.add_argument("--profile", help="validate at an application's profile (COLLX_STATS "
                    "JSON, as tune --profile): its collectives and communicator sizes, in the "
                    "middle of each message-size class (the tuner measured its bounds)")
    ap.add_argument("--out", help="folder for validate.md, validate.csv and validate.json "
                    "(every algorithm's time at every point)")
    ap.add_argument("--from", dest="resume", help="no measuring: evaluate the rules against "
                    "the forced runs of an earlier validate.json (same points)")
    ap.add_argument("--launches", type=int, default=1,
                    help="real MPI: measure every point in this many launches; selected "
                    "and native, timed in the same launch, give a ratio per launch and a "
                    "95%% interval of tuned/native (default 1)")
    ap.add_argument("--mpi-file", help="the MPI's own tuning file collx tune --mpi-file "
                    "wrote (with --rules: collx's rules decided against it): the MPI's default "
                    "vs its tuned choice vs collx's, per held-out point and in geometric mean "
                    "(a real MPI; --launches pairs of launches, default 3)")
    return ap.parse_args(argv)


def profile_plan(a, t, known):
    """({collective: [(q, sizes)]}, {(collective, q, m): calls}) of a
    profile's points: each measurable entry's communicator size
    (profile.Profile) at the middle of its message class, 3 * 2^(k-2) for
    the class 2^(k-1)..2^k - 1 (held out: the tuner measured the bounds; a
    class of one size: itself), any sizes (an older profile's
    v-collectives) between profile.ANY_SIZES; each with the calls the
    tuner charged its class's setups to (Profile.calls: every size of the
    class all of them; none where the profile does not count them)."""
    try:
        job, entries = profmod.read(a.profile)
    except profmod.ProfileError as e:
        raise SystemExit(f"validate: {e}")
    prof = profmod.Profile(a.profile, job, entries, t.p, t.node, known)
    plan, counted, calls = {}, prof.calls(), {}
    for e in entries:
        c = prof.keys.get(id(e))   # a shaped key where the tuner's is (grid.shaped)
        if c is None or (a.colls != "all" and gridmod.coll_of(c) not in a.colls.split(",")):
            continue
        if gridmod.coll_of(c) in gridmod.NO_SIZE:
            ms = [gridmod.BARRIER_SIZE]
        elif e["msg_hi"] is None:
            ms = [int(math.sqrt(x * y)) // 4 * 4
                  for x, y in zip(profmod.ANY_SIZES, profmod.ANY_SIZES[1:])]
        else:
            lo, hi = profmod.sizes_of(e)[0], profmod.sizes_of(e)[-1]
            ms = [max(lo, min(hi, lo * 3 // 2 // 4 * 4))]
        cur = dict(plan.get(c, []))
        cur[e["comm_size"]] = sorted(set(cur.get(e["comm_size"], [])) | set(ms))
        plan[c] = sorted(cur.items())
        n = counted.get((c, e["comm_size"], profmod.sizes_of(e)[0]))
        calls.update({(c, e["comm_size"], m): n for m in ms if n})
    if not plan:
        raise SystemExit(f"validate: nothing to validate in {a.profile}")
    return plan, calls


def points(a, t):
    if a.comm_sizes:
        comms = [int(x) for x in a.comm_sizes.split(",")]
    else:
        comms = gridmod.held_out_comm_sizes(t.p, t.node)
    if a.held_out_sizes:
        sizes = [gridmod.parse_size(x) for x in a.held_out_sizes.split(",")]
    else:
        lo, hi = gridmod.parse_range(a.sizes)
        sizes = gridmod.held_out_sizes(lo, hi)[::a.size_step]
    return sorted(comms), sorted(sizes)


def mean_of(rows):
    xs = [float(r["median_us"]) for r in rows]
    return Stat(xs, 0).mean if xs else None


def measure(t, a, coll, q, labels, sizes, rules_path, cannot):
    """({m: {label: (us, ran)}}, cost, ranks per node, failures, {m:
    selected / native per launch}, [(algorithm, setup us)]: store.setups_of)
    where a label is 'selected' or an algorithm. A run that fails keeps the
    cases it finished; the case it was in cannot be measured (a failure, said),
    and the rest runs again. Out of memory or time, that label is skipped
    at larger sizes and communicator sizes too (cannot: {label: [(q, m)]},
    shared by the runs of one collective), as the tuner presumes."""
    def skip(lab, m):
        return any(q >= q0 and m >= m0 for q0, m0 in cannot.get(lab, []))

    rows, cost, fails = [], 0.0, []
    # selected alone, as a program with the rules runs; the others as runs().
    # On a real MPI launches differ more than algorithms do (Open MPI, 2
    # ranks on this 2-core machine: allgather of 24 KiB 5.5 us in one
    # launch, 22 in the next), so there selected runs in native's launch.
    groups = runs([x for x in labels if x != "selected"])
    beside = next((g for g in groups if "native" in g), None) if t.launches_vary else None
    if "selected" in labels and beside is not None:
        beside.insert(0, "selected")
    elif "selected" in labels:
        groups.insert(0, ["selected"])
    launches = a.launches if t.launches_vary else 1
    todo = [(group, sizes, k) for k in range(launches) for group in groups]
    while todo:
        labs, ms, k = todo.pop(0)
        labs = [x for x in labs if any(not skip(x, m) for m in ms)]
        ms = [m for m in ms if any(not skip(x, m) for x in labs)]
        if not labs or not ms:
            continue
        seq = interleaved(labs, a.reps, k)   # ABBA: no label always first
        args = gridmod.comm_args(coll, q) + [
            "--algs", ",".join(seq), "-m", ",".join(map(str, ms)), "-i", str(a.iters),
            "-x", str(a.warmup)]
        got, out = t.run_collbench(q, args, env={"COLLX_RULES": os.path.abspath(rules_path)},
                                   timeout=a.timeout, mem_limit=a.mem_limit)
        rows += [{**r, "launch": k} for r in got]
        cost += t.cost(out)
        what = ", ".join(labs) if len(labs) <= 3 else f"{len(labs)} algorithms"
        print(f"[validate]   {coll} p={q}: {what} x {len(ms)} sizes"
              + (f" (launch {k + 1}/{launches})" if launches > 1 else "")
              + f" in {t.cost(out):.1f} s", file=sys.stderr, flush=True)
        order = [(m, x) for m in ms for x in seq]   # collbench's order
        if out.ok or len(got) >= len(order):
            continue
        m, lab = order[len(got)]
        fails.append(f"{lab} at {m} B cannot be measured ({out.why()}); skipped")
        if store.grows(out.why()):
            cannot.setdefault(lab, []).append((q, m))
        todo.append(([x for x in labs if x != lab], [x for x in ms if x >= m], k))
        todo.append(([lab], [x for x in ms if x > m], k))
    res = {}
    for r in rows:
        res.setdefault(int(r["size_bytes"]), {}).setdefault(r["alg"], []).append(r)
    ppn = int(rows[0]["ppn"]) if rows else q
    return ({m: {lab: (mean_of(rs), "+".join(sorted({x["ran"] for x in rs})))
                 for lab, rs in d.items()} for m, d in res.items()}, cost, ppn, fails,
            {m: paired(d.get("selected", []), d.get("native", [])) for m, d in res.items()},
            store.setups_of(rows))


def paired(sel, nat):
    """selected / native per launch, each timed in the same launch."""
    by = {}
    for r in nat:
        by.setdefault(r["launch"], []).append(float(r["median_us"]))
    out = []
    for k in sorted({r["launch"] for r in sel} & set(by)):
        s = [float(r["median_us"]) for r in sel if r["launch"] == k]
        out.append((sum(s) / len(s)) / (sum(by[k]) / len(by[k])))
    return out


def ratio_interval(ratios):
    """(geometric mean, 95 % interval, p) of per-launch ratios (t on their
    logs; p: one-sided, of a mean this far above 1 if tuned were not
    slower), or None with fewer than 2."""
    if len(ratios) < 2:
        return None
    st = Stat([math.log(x) for x in ratios], 0.0)
    p = t_upper(st.mean / st.se, st.n - 1) if st.se > 0 else (0.0 if st.mean > 0 else 1.0)
    return math.exp(st.mean), math.exp(st.lo), math.exp(st.hi), p


def holm(ps, alpha=0.05):
    """How many of the p-values Holm's method rejects at family-wise
    level alpha: of N points, about N/40 lie above 1 beyond their own 95 %
    interval by chance alone, even where tuned and native are the same
    call."""
    n = 0
    for i, p in enumerate(sorted(ps)):
        if p > alpha / (len(ps) - i):
            break
        n += 1
    return n


def file_sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main(argv):
    a = parse_args(argv)
    if a.mpi_file:   # the MPI's own file beside collx's rules (mpivalidate.py)
        t = make_target(a)
        if t.kind not in ("real", "smpi"):
            raise SystemExit("validate: --mpi-file measures a real MPI (--launch or --real) "
                             "or SMPI (--platform)")
        a.launches = 1 if t.kind == "smpi" else max(a.launches, 2) if a.launches != 1 else 3
        return mpivalidate.main(a, t, registry(t, a.colls, params=False, only=a.algs))
    files = {path: rulesmod.load(path) for path in a.rules}
    t0 = time.time()
    if a.resume:
        with open(a.resume) as f:
            data = json.load(f)
        # a file measured then as it is now keeps its own runs (selected,
        # and its ratios to native per launch); the others' choices come
        # from the forced runs
        kept = {p for p in files if data.get("rules_sha", {}).get(p) == file_sha(p)}
        for k in ("selected", "paired"):
            data[k] = {p: v for p, v in data.get(k, {}).items() if p in kept}
        where = f"the measurements of {a.resume}"
    else:
        t = make_target(a)
        plan, calls = None, {}
        if a.profile:
            plan, calls = profile_plan(a, t, set(registry(t, "all", params=False)))
            a.colls = ",".join(dict.fromkeys(gridmod.coll_of(c) for c in plan))
        algs = registry(t, a.colls, params=not a.no_params, only=a.algs)
        if plan:   # per key: a shaped one measures its collective's algorithms
            algs = {c: algs[gridmod.coll_of(c)] for c in plan}
        data = collect(t, a, algs, files, plan, calls)
        where = t.describe()
    rows, problems = evaluate(data, files)
    lines = []
    for path in files:
        summary = summarize([r for r in rows if r["rules"] == path], data["algs"])
        lines += report(a, where, path, data, summary,
                        [p for p in problems if f"({path})" in p or
                         not any(f"({f})" in p for f in files)],
                        replayed=bool(a.resume) and path not in data["selected"],
                        rows=[r for r in rows if r["rules"] == path])
    lines += [f"Cost of the measurements: {data['cost']:.0f} s ({data['clock']}), "
              f"{data['wall_s']:.0f} s wall." if not a.resume else
              f"Evaluated from {a.resume} in {time.time() - t0:.0f} s.", ""]
    print("\n".join(lines))
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        write_rows(os.path.join(a.out, "validate.csv"), list(rows[0]) if rows else [], rows)
        with open(os.path.join(a.out, "validate.md"), "w") as f:
            f.write("\n".join(lines) + "\n")
        if not a.resume:
            with open(os.path.join(a.out, "validate.json"), "w") as f:
                json.dump(data, f)
    return 1 if any("rules say" in p for p in problems) else 0


def collect(t, a, algs, files, plan=None, calls=None):
    """Measures every held-out point: every algorithm once with the first
    file's choice, then the other files' choices alone. Returns the data
    validate.json keeps: per collective and communicator size the ranks
    per node, every algorithm's (us, ran) per size ("forced"), and each
    file's ("selected"); the algorithms' setups on a new communicator
    ("setups", as tune.json's) and the profile's calls per point
    ("calls"). plan: {collective: [(q, sizes)]} (a profile's points,
    profile_plan, and calls its calls) instead of every held-out size at
    every held-out communicator size."""
    if plan:
        comms = sorted({q for v in plan.values() for q, _ in v})
        sizes = sorted({m for v in plan.values() for _, ms in v for m in ms})
    else:
        comms, sizes = points(a, t)
    data = {"target": t.describe(), "comm_sizes": comms, "sizes": sizes, "algs": algs,
            "reps": a.reps, "iters": a.iters,
            "launches": a.launches if t.launches_vary else 1, "clock": t.clock, "points": [],
            "selected": {}, "problems": [], "rules_sha": {p: file_sha(p) for p in files},
            "calls": [[c, q, m, n] for (c, q, m), n in sorted((calls or {}).items())]}
    setups = {}
    t0, cost = time.time(), 0.0
    print(f"[validate] {t.describe()}; communicator sizes {comms}, sizes {sizes}",
          file=sys.stderr, flush=True)
    for coll, names in algs.items():
        cannot = {}
        for q, use in plan[coll] if plan else [
                (q, sizes if coll not in gridmod.NO_SIZE else [gridmod.BARRIER_SIZE])
                for q in comms]:
            for i, path in enumerate(files):
                labels = ["selected"] + (names if i == 0 else [])
                res, spent, ppn, fails, pairs, setup = measure(t, a, coll, q, labels, use,
                                                               path, cannot if i == 0 else {})
                cost += spent
                for alg, us in setup:
                    setups.setdefault((coll, alg, q), []).append(us)
                print(f"[validate] {coll} p={q}: {len(use)} sizes x {len(labels)} in "
                      f"{spent:.1f} s; {cost:.0f} s so far" +
                      "".join(f"; {f}" for f in fails), file=sys.stderr, flush=True)
                data["problems"] += [f"{coll} p={q} ({path}): {f}" if i else
                                     f"{coll} p={q}: {f}" for f in fails]
                for m in use:
                    got = res.get(m, {})
                    if i == 0:
                        data["points"].append({"coll": coll, "p": q, "ppn": ppn,
                                               "size_bytes": m, "forced": {
                                                   k: v for k, v in got.items()
                                                   if k != "selected"}})
                    if "selected" in got:
                        data["selected"].setdefault(path, {})[f"{coll} {q} {m}"] = \
                            got["selected"]
                    if len(pairs.get(m, [])) > 1:
                        data.setdefault("paired", {}).setdefault(path, {})[
                            f"{coll} {q} {m}"] = pairs[m]
    data["cost"], data["wall_s"] = cost, time.time() - t0
    data["setups"] = [{"coll": c, "alg": x, "p": q, "us": us}
                      for (c, x, q), us in sorted(setups.items())]
    return data


def charger(data):
    """The tuner's Decider over validate's setups and the profile's calls,
    for its charge (decide.Decider.charge: the setup over the point's
    calls; 0 without calls, and in a validate.json from before them)."""
    st = store.Store(0.0)
    for x in data.get("setups", ()):
        for us in x["us"]:
            st.add_setup(x["coll"], x["alg"], x["p"], us)
    calls = {(c, q, m): n for c, q, m, n in data.get("calls", ())}
    return Decider(st, data["algs"], 0.0, calls=calls)


def evaluate(data, files):
    """Rows of validate.csv (every point of every file) and the problems."""
    rows = []
    problems = list(data["problems"])
    dec = charger(data)
    for pt in data["points"]:
        coll, q, m, ppn = pt["coll"], pt["p"], pt["size_bytes"], pt["ppn"]
        d = {k: tuple(v) for k, v in pt["forced"].items()}
        if "native" not in d:
            problems.append(f"{coll} p={q} {m} B: no result for native")
            continue
        for path, rules in files.items():
            sel = data["selected"].get(path, {}).get(f"{coll} {q} {m}")
            if sel is None:   # from the forced runs: what the rules pick ran there
                want = rulesmod.match(rules, gridmod.coll_of(coll), q, m, ppn) or "native"
                sel = d.get(want)
            if sel is None:
                problems.append(f"{coll} p={q} {m} B ({path}): no result")
                continue
            pair = data.get("paired", {}).get(path, {}).get(f"{coll} {q} {m}")
            rows.append(point(coll, q, m, ppn, {**d, "selected": tuple(sel)}, rules, path,
                              problems, ratio_interval(pair or []), dec))
    return rows, problems


def point(coll, q, m, ppn, d, rules, path, problems, interval=None, dec=None):
    """One held-out point of one rules file: tuned, oracle, native per
    call with their setups charged over the profile point's calls (dec:
    charger; none without calls), and the same in steady state (steady_*);
    the 95 % interval of tuned/native over launches, if measured so (in
    steady state: each launch's own times)."""
    tuned, ran = d["selected"]
    want = rulesmod.match(rules, gridmod.coll_of(coll), q, m, ppn) or "native"
    served = {lab: v for lab, v in d.items() if lab != "selected" and v[1] == lab}
    ok_ran = same_alg(ran, want) or ran == d.get(want, (None, None))[1]
    if not ok_ran:
        problems.append(f"{coll} p={q} {m} B ({path}): rules say {want}, ran {ran}")

    def charge(alg):
        return dec.charge(coll, alg, q, m) if dec else 0.0
    # tuned pays the setup of what served it: the rules' choice (a variant
    # with its params: column ran names its algorithm alone), or a fallback
    served_by = want if same_alg(ran, want) or ran not in d else ran
    paid = charge(served_by)
    steady = {lab: v[0] for lab, v in served.items()}
    charged = {lab: us + charge(lab) for lab, us in steady.items()}
    nat = d["native"][0]
    calls = dec.calls.get((coll, q, m)) if dec else None

    def compared(pre, times, t_us, n_us):
        oracle = min(times, key=times.get) if times else "native"
        o_us = times.get(oracle, n_us)
        return {f"{pre}tuned_us": f"{t_us:.3f}", f"{pre}oracle": oracle,
                f"{pre}oracle_us": f"{o_us:.3f}", f"{pre}native_us": f"{n_us:.3f}",
                f"{pre}tuned_over_oracle": f"{t_us / o_us:.4f}",
                f"{pre}tuned_over_native": f"{t_us / n_us:.4f}"}
    row = {"rules": path, "coll": coll, "p": q, "ppn": ppn, "size_bytes": m,
           "rule": want, "ran": ran, "ran_ok": int(ok_ran),
           **compared("", charged, tuned + paid, nat + charge("native")),
           "calls": calls or "",
           "tuned_setup_us": f"{dec.setup(coll, served_by, q):.1f}" if calls else "",
           **compared("steady_", steady, tuned, nat)}
    row.update({"tuned_over_native_paired": f"{interval[0]:.4f}" if interval else "",
                "tuned_over_native_lo": f"{interval[1]:.4f}" if interval else "",
                "tuned_over_native_hi": f"{interval[2]:.4f}" if interval else "",
                "tuned_slower_p": f"{interval[3]:.3g}" if interval else ""})
    return row


def summarize(rows, algs):
    out = []
    for coll in algs:
        rs = [r for r in rows if r["coll"] == coll]
        if not rs:
            continue
        to = [float(r["tuned_over_oracle"]) for r in rs]
        tn = [float(r["tuned_over_native"]) for r in rs]
        worst_o = max(rs, key=lambda r: float(r["tuned_over_oracle"]))
        worst_n = max(rs, key=lambda r: float(r["tuned_over_native"]))
        paired = [r for r in rs if r.get("tuned_over_native_lo")]   # older files: none
        slower = max(paired, key=lambda r: float(r["tuned_over_native_lo"]), default=None)
        # a validate.csv from before the setups were charged: steady state alone
        so = [float(r.get("steady_tuned_over_oracle") or r["tuned_over_oracle"]) for r in rs]
        sn = [float(r.get("steady_tuned_over_native") or r["tuned_over_native"]) for r in rs]
        out.append({"coll": coll, "points": len(rs), "geo_o": geomean(to), "worst_o": max(to),
                    "charged": sum(bool(r.get("calls")) for r in rs),
                    "steady_geo_o": geomean(so), "steady_worst_o": max(so),
                    "steady_geo_n": geomean(sn), "steady_worst_n": max(sn),
                    "paired": len(paired),
                    "beyond": sum(float(r["tuned_over_native_lo"]) > 1 for r in paired),
                    "beyond_fw": holm([float(r["tuned_slower_p"]) for r in paired
                                       if r.get("tuned_slower_p")]),
                    "slower": slower,
                    "at_o": f"p={worst_o['p']}, {worst_o['size_bytes']} B",
                    "geo_n": geomean(tn), "worst_n": max(tn),
                    "at_n": f"p={worst_n['p']}, {worst_n['size_bytes']} B",
                    "non_native": sum(r["rule"] != "native" for r in rs)})
    return out


def setup_lines(rows):
    """validate.md's lines on the points where the setups charged over
    the profile's calls changed the oracle or the verdict."""
    out = []
    for r in rows:
        if not r.get("calls"):
            continue
        o, so = r["tuned_over_oracle"], r["steady_tuned_over_oracle"]
        if r["oracle"] == r["steady_oracle"] and abs(float(o) / float(so) - 1) < 0.01:
            continue
        out.append(f"- {r['coll']} p={r['p']} {r['size_bytes']} B, {r['calls']} calls: "
                   f"tuned ({r['ran']}) {float(r['steady_tuned_us']):.1f} us per call, "
                   f"{float(r['tuned_us']):.1f} with its setup; steady state: oracle "
                   f"{r['steady_oracle']} {float(r['steady_oracle_us']):.1f} us, tuned/oracle "
                   f"{float(so):.3f}; with the setups: oracle {r['oracle']} "
                   f"{float(r['oracle_us']):.1f} us, tuned/oracle {float(o):.3f}")
    if not out:
        return []
    return ["", "Where the setups over the profile's calls changed the comparison:", ""] + out


def report(a, where, path, data, summary, problems, replayed, rows=()):
    def mark(ok):
        return "" if ok else " **(missed)**"
    lines = [f"# Validation of {path}", "",
             f"{where}; held-out communicator sizes {data['comm_sizes']}; sizes "
             f"{data['sizes']} B per rank; {data['reps']} sample(s) of {data['iters']} "
             "repetitions per point" + (f" in each of {data['launches']} launches"
                                        if data.get("launches", 1) > 1 else "") + ".", "",
             ("Tuned = the time of the algorithm the rules pick, from the forced runs "
              "(`--from`: collx did not load this file here); " if replayed else
              "Tuned = collbench `--algs selected` with `COLLX_RULES`; ") +
             "oracle = the fastest algorithm at the point (of those that served the call "
             "themselves). Targets: tuned/oracle geometric mean <= 1.05 and worst <= 1.25, "
             "tuned/native worst <= 1.10.", ""]
    charged = any(s["charged"] for s in summary)
    if charged:
        lines += ["Times per call with each algorithm's setup on a new communicator "
                  "(collbench's first call there minus its median) charged over the "
                  "profile point's calls, as the tuner chose (`decide.Decider.charge`); "
                  "the steady state (no setup) beside them.", ""]
    lines += ["| collective | points | rules pick collx | tuned/oracle: geomean | worst (where) | "
              "tuned/native: geomean | worst (where) |" +
              (" steady state: tuned/oracle geomean, worst | tuned/native geomean, worst |"
               if charged else ""),
              "|---|---|---|---|---|---|---|" + ("---|---|" if charged else "")]
    for s in summary:
        lines.append(
            f"| {s['coll']} | {s['points']} | {s['non_native']} | {s['geo_o']:.3f}"
            f"{mark(s['geo_o'] <= TARGETS['geomean_oracle'])} | {s['worst_o']:.3f} "
            f"({s['at_o']}){mark(s['worst_o'] <= TARGETS['worst_oracle'])} | "
            f"{s['geo_n']:.3f} | {s['worst_n']:.3f} ({s['at_n']})"
            f"{mark(s['worst_n'] <= TARGETS['worst_native'])} |" +
            (f" {s['steady_geo_o']:.3f}, {s['steady_worst_o']:.3f} | "
             f"{s['steady_geo_n']:.3f}, {s['steady_worst_n']:.3f} |" if charged else ""))
    lines += setup_lines(rows)
    if any(s["paired"] for s in summary):
        lines += ["", f"Against native over {data.get('launches', 1)} launches (selected and "
                  "native timed in the same launch: a ratio per launch; 95 % interval of "
                  "their geometric mean): points where tuned is slower than native beyond "
                  "the noise (the interval above 1; of N points about N/40 are so by "
                  "chance alone, so also: Holm's method at a family-wise 5 % over the "
                  "collective's points), and the point with the highest lower bound.", "",
                  "| collective | points | slower beyond noise: each point's 95 % | "
                  "family-wise 5 % (Holm) | highest lower bound: tuned/native [95 % "
                  "interval] (where) |", "|---|---|---|---|---|"]
        for s in summary:
            r = s["slower"]
            if r is None:
                continue
            lines.append(
                f"| {s['coll']} | {s['paired']} | {s['beyond']} | {s['beyond_fw']} | "
                f"{float(r['tuned_over_native_paired']):.3f} "
                f"[{float(r['tuned_over_native_lo']):.3f}, "
                f"{float(r['tuned_over_native_hi']):.3f}] (p={r['p']}, {r['size_bytes']} B, "
                f"{r['rule']}) |")
    if problems:
        lines += ["", "Problems:", ""] + [f"- {p}" for p in problems]
    return lines + [""]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
