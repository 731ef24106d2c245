"""The report's 'Measured selection (tuner)' section: what the demo's tune
step (bench/demo_tune.sh) wrote into DIR/tune/, laid out as
docs/results/tune/ is: the rules chosen (compact), the held-out
validation (tuned vs oracle vs native per collective), the tuning cost,
and where the full reports are. DIR/tune/status.tsv says whether each
step ran, failed or was skipped; the section says so instead of showing
nothing or stale files as this run's."""
import json
import os

from collx.csvio import read_rows
from collx.report.section import Section
from collx.tune import validate as validatemod

TITLE = "Measured selection (tuner)"


def section(res):
    s = Section(TITLE, TITLE)
    d = os.path.join(res, "tune")
    if not os.path.isdir(d):
        s.ours = "not in this run (`./run demo` runs it: bench/demo_tune.sh)."
        s.body += ["The demo's tune step (`bench/demo_tune.sh DIR`) did not run for this "
                   "results directory: it writes DIR/tune/. Larger runs and their validation: "
                   "`docs/results/tune/`.", ""]
        return s
    status = read_status(d)
    tuned = load_json(d, "tuned", "tune.json")
    rules = load_json(d, "tuned", "rules.json")
    val = validation(d, tuned)
    s.ours = headline(status, tuned, val)
    if status is None:
        s.body += ["DIR/tune/ has no status.tsv: these files were not written by the demo's "
                   "tune step, and whether they are this run's is unknown.", ""]
    for name in ("tune", "validate"):
        st = (status or {}).get(name)
        if st and st["status"] != "ok":
            s.body += step_problem(d, name, st)
    if tuned:
        s.body += about(tuned) + cost(tuned, val)
    if val:
        s.body += validation_table(val)
    elif tuned:
        s.body += ["No held-out validation in this run (DIR/tune/validate/validate.csv "
                   "missing).", ""]
    if rules is not None:
        s.body += rules_table(d, rules["rules"], tuned)
    s.body += pointers(d, tuned)
    return s


# ---------------------------------------------------------------- reading
def read_status(d):
    """{step: {status, wall_s, command}} of status.tsv, None without one."""
    path = os.path.join(d, "status.tsv")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        lines = [ln.rstrip("\n").split("\t") for ln in f if ln.strip()]
    if not lines:   # interrupted before its header: no step recorded
        return {}
    head = lines[0]
    return {row[0]: dict(zip(head[1:], row[1:])) for row in lines[1:]}


def load_json(d, *parts):
    path = os.path.join(d, *parts)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def validation(d, tuned):
    """The held-out validation of the tuned rules: {summary, rows, cost,
    wall_s, problems}, None without validate.csv. validate.csv may hold
    several rules files (docs/results/tune/ validates the grid's too):
    the rows of the one tune.json names, else of the first."""
    path = os.path.join(d, "validate", "validate.csv")
    if not os.path.exists(path):
        return None
    rows = read_rows(path)
    if not rows:
        return None
    files = list(dict.fromkeys(r["rules"] for r in rows))
    mine = tuned["rules"] if tuned and tuned.get("rules") in files else files[0]
    rows = [r for r in rows if r["rules"] == mine]
    colls = list(dict.fromkeys(r["coll"] for r in rows))
    data = load_json(d, "validate", "validate.json") or {}
    return {"summary": validatemod.summarize(rows, colls), "rows": rows,
            "cost": data.get("cost"), "wall_s": data.get("wall_s"), "clock": data.get("clock"),
            "points": data.get("comm_sizes"), "sizes": data.get("sizes"),
            "mismatches": [r for r in rows if r["ran_ok"] != "1"]}


# ---------------------------------------------------------------- writing
def headline(status, tuned, val):
    """The Summary line: the validation's ratios, or why there are none."""
    st = status or {}
    bad = [f"the {n} step {said(st[n]['status'])}" for n in ("tune", "validate")
           if n in st and st[n]["status"] != "ok"]
    if status is not None and "tune" not in st:
        bad.append("the tune step recorded no status (interrupted?)")
    if not tuned:
        return (("; ".join(bad) + "; no rules to show.") if bad else
                "DIR/tune/ holds no tuner output (tuned/tune.json).")
    parts = []
    if val:
        parts.append("; ".join(
            f"{v['coll']} tuned/oracle {v['geo_o']:.3f} (worst {v['worst_o']:.2f}), "
            f"tuned/native {v['geo_n']:.3f} (worst {v['worst_n']:.2f})"
            for v in val["summary"]) + f" on {len(val['rows'])} held-out points")
    parts.append(f"tuning cost {tuned['spent_s']:.0f} host s" +
                 (f" of a {tuned['budget']:.0f} s budget" if tuned.get("budget") else ""))
    text = "; ".join(parts + bad) + "."
    return text if status is not None else "(DIR/tune/ has no status.tsv: not written " \
        "by the demo's tune step) " + text


def step_problem(d, name, st):
    """A step that failed or was skipped: said, with its log's last lines."""
    if st["status"].startswith("skipped"):
        return [f"The {name} step {said(st['status'])}.", ""]
    out = [f"**The {name} step {said(st['status'])}**" +
           (f" after {st['wall_s']} s: `{st['command']}`." if st.get("command") else "."), ""]
    log = os.path.join(d, f"{name}.log")
    if os.path.exists(log):
        with open(log, errors="replace") as f:
            tail = f.read().rstrip("\n").splitlines()[-6:]
        out += [f"Last lines of tune/{name}.log:", "", "```"] + tail + ["```", ""]
    return out


def about(t):
    """What the tune step did: the command, the grid, how much of it was
    measured and why sampling stopped."""
    pairs = len(t["measurements"]["samples"])
    stopped = f" Sampling stopped: {t['stopped']}." if t.get("stopped") else \
        " Sampling ended with no point at risk."
    return ["The demo's tune step (`bench/demo_tune.sh`): `./run tune` measures the "
            "registered algorithms on one SMPI platform within a budget and writes a "
            "`COLLX_RULES` file; `./run tune validate` then runs it on points the tuner "
            "never sampled, beside native and every algorithm forced.", "",
            f"`{t['command']}`: {t['target']}; collectives {', '.join(t['colls'])}; "
            f"communicator sizes {', '.join(map(str, t['comm_sizes']))}; "
            f"{size_label(t['sizes'][0])}..{size_label(t['sizes'][1])} per rank; every "
            f"registered algorithm ({', '.join(f'{len(a)} for {c}' for c, a in t['algs'].items())}"
            f", native included). It measured {pairs} of the grid's {t['grid_pairs']} "
            f"(algorithm, point) pairs ({100 * pairs / t['grid_pairs']:.0f} %).{stopped}", ""]


def cost(t, val):
    clock = "host CPU s" if t["kind"] != "real" else "wall s"
    own = f" ({t['own_cpu_s']:.1f} the tuner's own)" if t["kind"] != "real" else ""
    budget = t["budget"] if t.get("budget") else "none"

    def of_val(key, fmt):
        return fmt.format(val[key]) if val and val.get(key) is not None else "-"
    runs = (f"{len(val['points'])} communicator sizes x {len(val['summary'])} collectives"
            if val and val.get("points") else "-")
    rows = ["| tuning cost | tune | validate (every algorithm at the held-out points) |",
            "|---|---|---|",
            f"| spent ({clock}) | {t['spent_s']:.1f}{own}, budget {budget} | "
            f"{of_val('cost', '{:.1f}')} |",
            f"| wall time | {t['wall_s']:.0f} s | {of_val('wall_s', '{:.0f} s')} |",
            f"| collbench runs | {len(t['measurements']['batches'])} | {runs} |"]
    failed = t["measurements"]["failed"]
    if failed:
        rows.append(f"| points that could not be measured | {len(failed)} | |")
    return rows + [""]


def validation_table(v):
    tg = validatemod.TARGETS

    def mark(ok):
        return "" if ok else " **(missed)**"
    sizes = ", ".join(size_label(m) for m in v["sizes"]) if v["sizes"] else "3 x 2^j"
    comms = ", ".join(map(str, v["points"])) if v["points"] else "off the grid"
    out = ["### Tuned vs native vs oracle on held-out points", "",
           f"Communicator sizes {comms} and sizes {sizes} per rank: none of them on the "
           "tuner's grid. Tuned = collbench `--algs selected` under `COLLX_RULES`; oracle = "
           "the fastest of every algorithm forced at the point; native = the MPI's own. "
           f"Targets (issue 30): tuned/oracle geomean <= {tg['geomean_oracle']}, worst <= "
           f"{tg['worst_oracle']}; tuned/native worst <= {tg['worst_native']}.", "",
           "| collective | points | rules pick collx | tuned/oracle: geomean | worst (where) | "
           "tuned/native: geomean | worst (where) |", "|---|---|---|---|---|---|---|"]
    for s in v["summary"]:
        out.append(f"| {s['coll']} | {s['points']} | {s['non_native']} | "
                   f"{s['geo_o']:.3f}{mark(s['geo_o'] <= tg['geomean_oracle'])} | "
                   f"{s['worst_o']:.3f} ({where(s['at_o'])})"
                   f"{mark(s['worst_o'] <= tg['worst_oracle'])} | {s['geo_n']:.3f} | "
                   f"{s['worst_n']:.3f} ({where(s['at_n'])})"
                   f"{mark(s['worst_n'] <= tg['worst_native'])} |")
    bad = v["mismatches"]
    out += ["", f"Column `ran` said what the rules say at every point." if not bad else
            f"Column `ran` disagreed with the rules at {len(bad)} points: " +
            "; ".join(f"{r['coll']} p={r['p']} {size_label(int(r['size_bytes']))}: rules "
                      f"{r['rule']}, ran {r['ran']}" for r in bad[:5]) + ".", ""]
    return out


def rules_table(d, rules, tuned):
    """One row per collective and communicator-size range: the algorithm
    per message-size range, as the rules file has them."""
    out = ["### The rules chosen", "",
           "Per communicator-size range, the algorithm by bytes per rank (`native` where "
           "no collx algorithm beat it beyond the noise). Every rule also bounds "
           "`ranks_per_node` to block placement; beyond the largest size tuned no rule "
           "matches and native runs.", "",
           "| collective | communicator sizes | algorithm by bytes per rank |", "|---|---|---|"]
    groups = {}
    for r in rules:
        groups.setdefault((r["collective"], bounds(r.get("comm_size"))), []).append(r)
    for (coll, (lo, hi)), rs in groups.items():
        segs = [f"{alg_label(r)} {range_label(r.get('msg_size'))}".rstrip() for r in rs]
        out.append(f"| {coll} | {comm_label(lo, hi)} | {' · '.join(segs)} |")
    maps = [c for c in (tuned or {}).get("colls", [])
            if os.path.exists(os.path.join(d, "tuned", f"map_{c}.png"))]
    if maps:
        out += ["", " ".join(f"![{c}](tune/tuned/map_{c}.png)" for c in maps)]
    return out + [""]


def pointers(d, tuned):
    out = ["### Where the rest is", ""]
    if os.path.exists(os.path.join(d, "tuned", "report.md")):
        out.append("- this run's tuner report: [tune/tuned/report.md](tune/tuned/report.md) "
                   "(maps of the choice over communicator and message size, predicted and "
                   "measured regret, the exhaustive grid's predicted cost); the rules file: "
                   "`tune/tuned/rules.json` (`COLLX_RULES=... ./app` uses it)")
    if os.path.exists(os.path.join(d, "validate", "validate.md")):
        out.append("- every held-out point: [tune/validate/validate.md](tune/validate/"
                   "validate.md), `tune/validate/validate.csv`")
    out.append("- the full validation (ib-6x8, p = 32, three collectives, the tuner against "
               "the exhaustive grid at a quarter of its cost, and what it gets wrong): "
               "`docs/results/tune/README.md`; how the tuner works: "
               "`python/collx/tune/README.md`")
    return out + [""]


# ---------------------------------------------------------------- labels
def said(status):
    """status.tsv's status as words: 'failed (exit 1)', 'was skipped (why)'."""
    what, _, why = status.partition(": ")
    return f"was skipped ({why})" if what == "skipped" else status


def bounds(b):
    b = b or {}
    return b.get("min"), b.get("max")


def comm_label(lo, hi):
    if lo is None and hi is None:
        return "any"
    if lo is None:
        return f"<= {hi}"
    if hi is None:
        return f">= {lo}"
    return str(lo) if lo == hi else f"{lo}-{hi}"


def range_label(b):
    lo, hi = bounds(b)
    if lo is None and hi is None:
        return "(all sizes)"
    return f"({size_label(lo) if lo else '0'}..{size_label(hi) if hi else ''})"


def alg_label(r):
    params = r.get("params")
    if not params:
        return r["algorithm"]
    return r["algorithm"] + "[" + ", ".join(f"{k}={v}" for k, v in params.items()) + "]"


def size_label(m):
    for unit, k in (("M", 1 << 20), ("K", 1 << 10)):
        if m >= k:
            return f"{m / k:.3g}{unit}"
    return f"{m} B"


def where(at):
    """'p=12, 196608 B' -> 'p=12, 192K'."""
    p, _, m = at.partition(", ")
    return f"{p}, {size_label(int(m.split()[0]))}" if m else at
