#!/usr/bin/python3
"""collx.apps without MPI: each application's result parser on text as the
program prints it (and nothing from an unconverged run), the tolerance
(rounding passes, a wrong collective's change fails, a missing quantity
fails), the collective share and its bound, the oracle from forced runs'
COLLX_STATS, the ABBA summary and its per-round ratios.

    test_apps_units.py [REPO_ROOT]"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tune",
                                "units"))
import helpers  # noqa: E402  (puts REPO_ROOT/python on the path)
from collx.apps import catalogue, correct, report, share, timing  # noqa: E402

LAMMPS_LOG = """LAMMPS (7 Jan 2022)
---------------- Step        0 ----- CPU =      0.0000 (sec) ----------------
TotEng   =     -5237.4580 KinEng   =      1134.9186 Temp     =       282.1005 
E_coul   =     26772.2646 E_long   =    -33907.9271 Press    =      -837.0112 
---------------- Step       30 ----- CPU =      0.1676 (sec) ----------------
TotEng   =     -5240.6354 KinEng   =      1126.4695 Temp     =       280.0004 
E_coul   =     26831.4861 E_long   =    -33907.2802 Press    =     -2080.8982 
Loop time of 0.35 on 8 procs for 30 steps with 2004 atoms
"""


def tmpdir_with(name, text):
    d = tempfile.mkdtemp(prefix="collx-apps-")
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
    return d


def test_lammps_parse_and_tolerance():
    app = catalogue.get("lammps")
    got = app.result(tmpdir_with("log.lammps", LAMMPS_LOG), "")
    assert len(got) == 12 and got["E_long@30"] == -33907.2802, got
    ok, _ = app.compare(got, dict(got))
    assert ok
    rounded = dict(got, **{"TotEng@30": got["TotEng@30"] + 1e-4})
    assert app.compare(got, rounded)[0], "one unit of the last printed digit is rounding"
    wrong = dict(got, **{"E_long@30": -33901.0})
    ok, why = app.compare(got, wrong)
    assert not ok and "E_long@30" in why, why
    late = {"Press@250": -189.5772, "KinEng@250": 1100.0}
    assert app.compare(late, {"Press@250": -189.6059, "KinEng@250": 1100.0 * (1 + 6e-7)})[0], \
        "past step 60, chaos amplified rounding: 0.03 atm and 6e-7 pass"
    assert not app.compare({"Press@0": -837.0112}, {"Press@0": -837.0412})[0], \
        "at step 0 the same 0.03 atm is a wrong result"
    missing = {k: v for k, v in got.items() if k != "Press@0"}
    ok, why = app.compare(got, missing)
    assert not ok and "missing" in why


def test_lammps_input_from_the_example():
    app = catalogue.get("lammps")
    if not os.path.exists(os.path.join(catalogue.LAMMPS_EXAMPLE, "in.peptide")):
        print("  (lammps-examples not installed: input check left out)")
        return
    d = tempfile.mkdtemp(prefix="collx-apps-")
    words = app.prepare(d, "check")
    text = open(os.path.join(d, "in.peptide")).read()
    assert words[0] == "lmp" and "kspace_modify\tcollective yes" in text
    assert f"read_data\t{catalogue.LAMMPS_EXAMPLE}/data.peptide" in text
    assert "run\t\t60" in text


QE_OUT = """
     convergence has been achieved in   9 iterations
!    total energy              =     -63.33948666 Ry
     highest occupied level (ev):     6.2345
"""


def test_qe_parse():
    app = catalogue.get("qe")
    got = app.result("", QE_OUT)
    assert got == {"energy_ry": -63.33948666, "homo_ev": 6.2345}, got
    assert app.result("", QE_OUT.replace("convergence has been achieved", "x")) \
        .get("energy_ry") is None, "an unconverged SCF gives no energy"
    assert not app.compare(got, dict(got, energy_ry=-63.3394))[0]
    assert app.compare(got, dict(got, energy_ry=-63.33948676))[0]


def test_cp2k_parse():
    app = catalogue.get("cp2k")
    line = " ENERGY| Total FORCE_EVAL ( QS ) energy [a.u.]:             -17.176461747824167\n"
    d = tmpdir_with("water.out", "  *** SCF run converged in    27 steps ***\n" + line)
    assert app.result(d, "") == {"energy_ha": -17.176461747824167}
    d = tmpdir_with("water.out", " *** WARNING in qs_scf.F:601 :: SCF run NOT converged ***\n"
                    + line)
    assert app.result(d, "") == {}


def stats(coll_seconds, job=10.0, ranks=2, served=None):
    return {"job": {"ranks": ranks, "seconds": job},
            "served": served or [{"collective": c, "algorithm": "native", "calls": 5}
                                 for c in coll_seconds],
            "profile": [{"collective": c, "rank_seconds": s * ranks}
                        for c, s in coll_seconds.items()]}


def test_share_and_bound():
    st = stats({"alltoall": 4.0, "allreduce": 1.0})
    assert abs(share.share(st) - 0.5) < 1e-12
    assert [c for c, _, _ in share.by_collective(st)] == ["alltoall", "allreduce"]
    assert abs(share.bound(0.5, 2.0) - 1 / 0.75) < 1e-12
    assert share.bound(0.5) == 2.0 and share.bound(0.0, 5.0) == 1.0


def test_oracle_takes_the_fastest_passing_and_beats_native():
    root = tempfile.mkdtemp(prefix="collx-apps-")

    def run(tag, secs):
        d = os.path.join(root, tag)
        os.makedirs(d)
        with open(os.path.join(d, "stats.json"), "w") as f:
            json.dump(stats(secs), f)
        return d
    rows = [{"collective": "", "algorithm": "native", "status": "pass", "coll_seconds": "",
             "dir": run("native", {"alltoall": 4.0, "allreduce": 1.0})}]
    for coll, alg, t, status in (("alltoall", "pairwise", 3.0, "pass"),
                                 ("alltoall", "bruck", 2.0, "fail"),
                                 ("alltoall", "hier", 3.5, "pass"),
                                 ("allreduce", "ring", 1.5, "pass")):
        rows.append({"collective": coll, "algorithm": alg, "status": status,
                     "coll_seconds": str(t), "dir": run(f"{coll}.{alg}", {coll: t})})
    assert correct.oracle(rows) == {"alltoall": "pairwise"}, correct.oracle(rows)


def test_abba_summary():
    rows = []
    for i, (n, t) in enumerate(((10.0, 8.0), (10.4, 8.2), (9.8, 7.9), (10.1, 8.1), (10.2, 8.0))):
        rows += [{"round": i, "config": "native", "wall_seconds": n, "rc": 0},
                 {"round": i, "config": "tuned", "wall_seconds": t, "rc": 0}]
    rows.append({"round": 5, "config": "tuned", "wall_seconds": 1.0, "rc": 1})
    s = timing.summary(rows)
    assert s["native"]["n"] == 5 and s["native"]["median"] == 10.1
    assert s["tuned"]["min"] == 7.9, "a failed launch is no time"
    gm, lo, hi, p = s["tuned"]["ratio"]
    assert 0.78 < gm < 0.81 and lo < gm < hi < 1 and p > 0.5
    assert timing.settings("native") is None and timing.settings("loaded") == {}
    assert timing.settings("oracle", oracle={"alltoall": "hier"}) == \
        {"COLLX_ALLTOALL_ALGORITHM": "hier"}


def test_report_table_and_targets():
    d = tempfile.mkdtemp(prefix="collx-apps-")
    rows = []
    for i, (n, t) in enumerate(((10.0, 8.0), (10.4, 8.2), (9.8, 7.9), (10.1, 8.1), (10.2, 8.0))):
        rows += [{"round": i, "config": "native", "wall_seconds": n, "rc": 0},
                 {"round": i, "config": "tuned", "wall_seconds": t, "rc": 0}]
    summ = timing.summary(rows)
    t = {"app": "qe", "where": "cluster-p8-block", "placement": "block", "share": 0.5,
         "job_seconds": 9.0, "by_collective": [["alltoall", 4.0, 0.44]], "oracle": {},
         "summary": summ}
    os.makedirs(os.path.join(d, "time-qe-block"))
    with open(os.path.join(d, "time-qe-block", "summary.json"), "w") as f:
        json.dump(t, f)
    correct.write([{"app": "qe", "where": "fake-p8-rpn2", "size": "check",
                    "collective": "alltoall", "algorithm": "bruck", "status": "fail",
                    "worst": "energy_ry moved", "notes": "", "dir": d}],
                  os.path.join(d, "correct-fake-p8-rpn2.csv"))
    report.main(d)
    text = open(os.path.join(d, "report.md")).read()
    assert "| qe | block | 0.50 |" in text, text
    assert "x1.15 wanted: met" in text, "10.1/8.0 = 1.26 meets the target"
    assert "alltoall=bruck: fail: energy_ry moved" in text
    assert "| qe | fake-p8-rpn2 | 0 | 1 |" in text


if __name__ == "__main__":
    helpers.run_module(dict(globals()))
