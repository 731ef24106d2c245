#!/usr/bin/python3
"""report.py (issue 62): what each rule rests on, as the rules file's
evidence records it (a rule between grid points: those around it); tables
that stay Markdown (no blank line inside, no bare "|" in a cell); no "nan"
for a regret with nothing to compute it from; the runs that failed, with
the first one's whole message.

    test_report.py [REPO_ROOT]"""
import os
import tempfile

import helpers
from collx import rulesfile
from collx.tune import grid, report, rules
from collx.tune.decide import Decider
from collx.tune.store import Store


def tuned(times, qs=(8,), ms=(8, 1024)):
    """(store, grids, decider, choices, rules) of allreduce over qs x ms
    from {alg: {(q, m): us}} (one sample each)."""
    st = Store(0.005)
    for a, pts in times.items():
        for (q, m), us in pts.items():
            st.samples[("allreduce", a, q, m)] = [us]
            st.ran[("allreduce", a, q, m)] = {a}
    grids = {"allreduce": grid.Grid("allreduce", list(qs), list(ms))}
    dec = Decider(st, {"allreduce": ["native"] + sorted(set(times) - {"native"})}, 0.02, grids)
    dec.refit("allreduce")
    choices = {"allreduce": dec.choices("allreduce", grids["allreduce"])}
    rs = rules.build("allreduce", grids["allreduce"], choices["allreduce"])
    return st, grids, dec, choices, rs


def test_evidence_per_rule():
    # fast measured beside native at 8 B (chosen there); at 1 KiB only native
    st, grids, dec, choices, rs = tuned({"native": {(8, 8): 100.0, (8, 1024): 200.0},
                                         "fast": {(8, 8): 50.0}})
    assert [r["algorithm"] for r in rs] == ["fast", "native"], f"the rules: {rs}"
    bases = report.bases_of(st, dec, grids, choices)
    points, between = report.rule_points(rs, grids, st, None)
    noise = report.noise_of(dec, grids, choices)
    ev = report.evidence(rs, points, between, bases, st, runs=3, failed=1, noise=noise)
    per = rulesfile.evidence_of(ev, len(rs))
    assert per[0]["measured"] == 1 and per[0]["within_noise"] == 0 and \
        ev["runs"] == 3 and ev["runs_failed"] == 1 and ev["pairs_measured"] == 3, \
        f"fast's rule: its grid point measured with an alternative: {ev}"
    assert rulesfile.measured_share(per[1]) == (0, 1), \
        f"native at 1 KiB with nothing else measured there: 0 of 1 measured: {per[1]}"
    assert rulesfile.evidence_text(ev, rs) == \
        "of the 2 grid points they serve: 1 measured with alternatives, 0 predicted, " \
        "0 at risk, 1 native alone; 0 within the noise; rules: 1 of 2 with every grid " \
        "point measured, 0 with some, 1 with none", rulesfile.evidence_text(ev, rs)


def test_measured_means_with_alternatives():
    # issue 62: the Choices table said 60 of 60 points measured (native
    # measured everywhere) beside a spend table saying 8: one meaning now,
    # native measured alone is not "measured"
    st, grids, dec, choices, rs = tuned({"native": {(8, 8): 100.0, (8, 1024): 200.0,
                                                    (8, 4096): 300.0},
                                         "fast": {(8, 8): 50.0}}, ms=(8, 1024, 4096))
    bases = report.bases_of(st, dec, grids, choices)
    assert [bases[("allreduce", 8, m)] for m in (8, 1024, 4096)] == \
        ["measured", "native alone", "native alone"], bases
    with tempfile.TemporaryDirectory() as out:
        meta = {"algs": dec.algs, "target": "t", "command": "c", "mode": "guided",
                "comm_sizes": [8], "sizes": [8, 4096], "reps": 1, "iters": 1, "warmup": 0,
                "margin": 0.02, "rules": "r.json", "stopped": "", "kind": "smpi",
                "spent_s": 1.0, "own_cpu_s": 0.1, "budget": None, "wall_s": 1.0,
                "grid_pairs": 6, "node": None}

        class S:
            cost = type("C", (), {"refit": lambda self, c: None,
                                  "batch": lambda self, *a: 0.0})()
        report.write(out, meta, grids, st, dec, choices, rs, S())
        text = open(os.path.join(out, "report.md")).read()
    row = next(x for x in text.splitlines() if x.startswith("| allreduce |"))
    assert "| 1 / 3 |" in row and "grid points measured (with alternatives) / grid" in text, \
        f"the Choices table counts grid points measured with alternatives: {row}"
    assert ".py" not in text and "Decider" not in text, \
        "report.md names no source file: " + next(x for x in text.splitlines()
                                                  if ".py" in x or "Decider" in x)


def test_evidence_of_a_file_from_before():
    # a file from issue 62's first pass: choice_measured in place of within_noise
    ev = {"fields": ["measured", "predicted", "at_risk", "native_alone", "choice_measured"],
          "rules": [[0, 0, 1, 0, 1], [2, 0, 0, 0, 2]]}
    rs = [{"collective": "allreduce", "algorithm": "hier"},
          {"collective": "allreduce", "algorithm": "native"}]
    text = rulesfile.evidence_text(ev, rs)
    assert text.startswith("of the 3 grid points they serve: 2 measured with alternatives, "
                           "0 predicted, 1 at risk, 0 native alone;") and \
        "1 with none" in text and "within the noise" not in text, \
        f"a hier rule at risk is not counted as measured: {text}"


def test_rule_between_grid_points_counts_those_around():
    rs = [{"collective": "allreduce", "algorithm": "native", "msg_size": {"max": 8}},
          {"collective": "allreduce", "algorithm": "fast", "msg_size": {"min": 9, "max": 1023}},
          {"collective": "allreduce", "algorithm": "native", "msg_size": {"min": 1024}}]
    g = {"allreduce": grid.Grid("allreduce", [8], [8, 1024])}
    points, between = report.rule_points(rs, g, Store(0.005), None)
    assert between == {1} and sorted(points[1]) == [("allreduce", 8, 8), ("allreduce", 8, 1024)], \
        f"a rule between two grid sizes rests on the grid points around it: {points}"


def test_evidence_that_does_not_match_the_rules():
    ev = {"fields": list(rulesfile.EVIDENCE_FIELDS), "rules": [[1, 0, 0, 0, 1]]}
    assert "edited after tuning" in rulesfile.evidence_of(ev, 2) and \
        "not recorded" in rulesfile.evidence_of(None, 2), \
        "evidence for another number of rules, or none: said, not read"


def test_tables_stay_markdown():
    rows = report.table_rows(["| a | 1 |", None, "| b | 2 |"])
    assert rows == ["| | value |", "|---|---|", "| a | 1 |", "| b | 2 |"], \
        f"a row left out leaves no blank line inside the table: {rows}"
    assert report.cell("exit 1: a | b\nc") == "exit 1: a \\| b c", \
        "a cell is one line, its | escaped"
    assert report.num(None) == "not measured" and report.num(1.23456) == "1.235" and \
        report.geomean([]) is None, "no nan: a missing number is said"


def test_failures_section_has_the_whole_message():
    msg = "command: mpirun -n 4 collbench\nended: exit 1; its message:\n  | There are not\n" \
          "  | enough slots."
    lines = report.failures_section({"runs": 2, "of": 9, "first": msg,
                                     "first_where": "allreduce p=4",
                                     "others": ["exit 1: other | thing"]})
    text = "\n".join(lines)
    assert "2 of 9 collbench runs failed" in text and f"```\n{msg}\n```" in text and \
        "- exit 1: other \\| thing" in text, f"the failed runs' section:\n{text}"


def test_report_has_no_nan_and_whole_tables():
    # "other" measured nowhere: no point has every algorithm measured, so no
    # measured regret (it said "nan, nan")
    st, grids, dec, choices, rs = tuned({"native": {(8, 8): 100.0, (8, 1024): 200.0},
                                         "fast": {(8, 8): 50.0}, "other": {}})
    st.fail("allreduce", "fast", 8, 1024, "exit 1: There are | not enough slots.")
    st.batches = [{"q": 8, "cost": 1.0, "cases": 3}]
    meta = {"target": "t", "kind": "real", "p": 8, "node": None, "colls": ["allreduce"],
            "algs": dec.algs, "comm_sizes": [8], "sizes": [8, 1024], "budget": 10,
            "mode": "guided", "margin": 0.02, "reps": 3, "iters": 20, "warmup": 5,
            "rules": "r.json", "stopped": "", "wall_s": 1.0, "grid_pairs": 4, "check": None,
            "spent_s": 1.0, "own_cpu_s": 0.1, "command": "collx tune",
            "failures": {"runs": 1, "of": 1, "first": "command: x\nended: exit 1",
                         "first_where": "allreduce p=8", "others": []}}
    smp = type("S", (), {"cost": type("C", (), {"refit": lambda self, c: None,
                                                "batch": lambda self, *a: 1.0})()})()
    with tempfile.TemporaryDirectory() as d:
        report.write(d, meta, grids, st, dec, choices, rs, smp)
        with open(os.path.join(d, "report.md")) as f:
            text = f.read()
    assert "nan" not in text and "| not measured, not measured, 0 |" in text, \
        "no nan in the report: a regret with no point to compute it at is not measured"
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):   # a table ends at a line that is not a row
        if line.startswith("|") and not lines[i + 1].strip():
            assert i + 2 >= len(lines) or not lines[i + 2].startswith("|"), \
                f"a blank line inside a table at line {i + 2}: {lines[i:i + 3]}"
    assert "## Runs that failed" in text and "There are \\| not enough slots." in text, \
        "the failed runs said, the gist's | escaped in its table"


if __name__ == "__main__":
    helpers.run_module(globals())
