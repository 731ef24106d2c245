"""Correct with every algorithm forced: for an application, each
collective it calls (COLLX_STATS of a run with nothing chosen), each
registered algorithm of it forced (COLLX_<COLL>_ALGORITHM), one launch
each; the application's own result is compared with the native run's
within the application's tolerance (catalogue.py says why).

A row's status: pass; fail (the result moved beyond the tolerance, or
none was printed); error (the launch failed); timeout; unexercised (the
run passed but the forced algorithm served none of the calls: collx's
reasons are in `notes`). The same rows carry each run's time in that
collective (COLLX_STATS), from which timing.py takes the oracle."""
import json
import os
import subprocess
import sys

from collx import csvio, tools
from collx.apps import catalogue, launch, share

FIELDS = ("app", "where", "size", "collective", "algorithm", "status", "served_calls",
          "calls", "coll_seconds", "job_seconds", "wall_seconds", "worst", "notes", "dir")


def algorithms(mpi="openmpi", info=None):
    """{collective: [algorithms, registry order]} from collx_info --list."""
    info = info or tools.find("collx_info", mpi)
    out = subprocess.run([info, "--list"], capture_output=True, text=True, timeout=120,
                         check=True).stdout
    reg = {}
    for line in out.split():
        coll, _, alg = line.partition(".")
        if alg:
            reg.setdefault(coll, []).append(alg)
    return reg


def log(msg):
    print(f"[apps] {msg}", file=sys.stderr, flush=True)


def one(app, where, size, outdir, tag, collx, timeout):
    """One launch in outdir/tag: (Result, the result's quantities)."""
    wd = os.path.join(outdir, tag)
    os.makedirs(wd, exist_ok=True)
    program = app.prepare(wd, size)
    r = launch.run(where, program, wd, collx=collx, stats=collx is not None, timeout=timeout)
    return r, (app.result(wd, r.output) if r.ok() else {}), wd


def reference(app, where, size, outdir, timeout):
    """The native reference: collx loaded with nothing chosen (every call
    the MPI's own, counted by COLLX_STATS). Raises RuntimeError when it
    fails or prints no result."""
    r, res, wd = one(app, where, size, outdir, "native", {}, timeout)
    if not r.ok() or not res or r.stats is None:
        raise RuntimeError(f"{app.name}: the native run failed (rc {r.rc}"
                           f"{', timed out' if r.timed_out else ''}); see {wd}/output.txt")
    return r, res, wd


def row(app, where, size, coll, alg, status, r, stats_coll, worst, notes, wd):
    st = r.stats if r else None
    return {"app": app.name, "where": where.label(), "size": size, "collective": coll,
            "algorithm": alg, "status": status,
            "served_calls": share.served(st, coll).get(alg, 0) if st else "",
            "calls": share.collectives(st).get(coll, 0) if st else "",
            "coll_seconds": f"{share.coll_seconds(st, stats_coll):.4f}" if st else "",
            "job_seconds": f"{share.job_seconds(st):.3f}" if st else "",
            "wall_seconds": f"{r.seconds:.3f}" if r else "", "worst": worst,
            "notes": notes, "dir": wd}


def matrix(app, where, size, outdir, colls=None, algs=None, timeout=600, mpi="openmpi",
           min_share=0.0):
    """The rows: native (nothing chosen) and a plain run without collx
    first (run to run, native must agree with itself), then every
    (collective, algorithm) forced. min_share: only the collectives that
    take at least that share of the native run's time in collectives."""
    reg = algorithms(mpi)
    ref, native, wd = reference(app, where, size, outdir, timeout)
    total = share.coll_seconds(ref.stats) or 1.0
    called = {c: n for c, n in share.collectives(ref.stats).items()
              if share.coll_seconds(ref.stats, c) >= min_share * total}
    rows = [row(app, where, size, "", "native", "pass", ref, None, "", "reference", wd)]
    r, res, wd = one(app, where, size, outdir, "without-collx", None, timeout)
    ok, worst = app.compare(native, res) if r.ok() else (False, f"rc {r.rc}")
    rows.append(row(app, where, size, "", "without collx", "pass" if ok else "fail", r, None,
                    worst, "", wd))
    todo = [(c, a) for c in reg if c in called and (not colls or c in colls)
            for a in reg[c] if a != "native" and (not algs or a in algs)]
    log(f"{app.name} on {where.label()} ({size}): calls {', '.join(sorted(called))}; "
        f"{len(todo)} forced runs")
    for i, (coll, alg) in enumerate(todo, 1):
        var = f"COLLX_{coll.upper()}_ALGORITHM"
        r, res, wd = one(app, where, size, outdir, f"{coll}.{alg}", {var: alg}, timeout)
        notes = ""
        if r.timed_out:
            status, worst = "timeout", f"killed after {timeout} s"
        elif not r.ok():
            status, worst = "error", f"rc {r.rc}: " + " | ".join(r.output.strip().splitlines()[-2:])
        else:
            ok, worst = app.compare(native, res)
            status = "pass" if ok else "fail"
            if ok and share.served(r.stats, coll).get(alg, 0) == 0:
                status = "unexercised"
                notes = "; ".join(share.fallbacks(r.stats, coll))
        rows.append(row(app, where, size, coll, alg, status, r, coll, worst, notes, wd))
        log(f"  [{i}/{len(todo)}] {coll} = {alg}: {status} ({r.seconds:.1f} s"
            f"{', ' + worst if status != 'pass' else ''})")
    return rows


def recheck(rows):
    """The rows' pass/fail again from the runs' saved outputs, with the
    applications' tolerances as they are now (the reference: each
    (app, where, size)'s native row). Returns how many changed."""
    from_dir = {}
    changed = 0
    for r in rows:
        if r["status"] not in ("pass", "fail") or r["algorithm"] == "native":
            continue
        app = catalogue.get(r["app"])
        key = (r["app"], r["where"], r["size"])
        if key not in from_dir:
            ref = next(x for x in rows if (x["app"], x["where"], x["size"]) == key
                       and x["algorithm"] == "native" and not x["collective"])
            from_dir[key] = app.result(ref["dir"], launch.read_output(ref["dir"]))
        got = app.result(r["dir"], launch.read_output(r["dir"]))
        ok, worst = app.compare(from_dir[key], got)
        status = "pass" if ok else "fail"
        if status == "pass" and r["collective"] and r.get("served_calls") == "0":
            status = "unexercised"
        if status != r["status"]:
            changed += 1
        r["status"], r["worst"] = status, worst
    return changed


def write(rows, path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    csvio.write_rows(path, FIELDS, rows)


read_rows = csvio.read_rows


def oracle(rows):
    """{collective: algorithm}: per collective, the passing forced
    algorithm that spent least time in it, where that beats native's time
    in it (the reference row's run)."""
    native = {}
    ref = next((r for r in rows if r["algorithm"] == "native" and not r["collective"]), None)
    best = {}
    for r in rows:
        if r["status"] != "pass" or not r["collective"] or not r["coll_seconds"]:
            continue
        t = float(r["coll_seconds"])
        if r["collective"] not in best or t < best[r["collective"]][1]:
            best[r["collective"]] = (r["algorithm"], t)
    if ref is not None:
        native = coll_times(ref["dir"])
    return {c: a for c, (a, t) in best.items() if t < native.get(c, float("inf"))}


def coll_times(wd):
    """{collective: seconds} of the run in folder wd (its stats.json)."""
    try:
        with open(os.path.join(wd, "stats.json")) as f:
            st = json.load(f)
    except (OSError, ValueError):
        return {}
    return {c: share.coll_seconds(st, c) for c in share.collectives(st)}
