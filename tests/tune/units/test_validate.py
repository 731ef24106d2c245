#!/usr/bin/python3
"""validate.py: validation on a real MPI, selected and native paired per
launch; the ratio's interval and p; Holm's correction. From
tests/tune/test_tune_units.py's validate part.

    test_validate.py [REPO_ROOT]"""
import json
import os
import tempfile

import helpers
from collx.tune import validate


# validate on a real MPI: selected and native paired per launch
def test_paired():
    rows_sel = [{"launch": k, "median_us": v} for k, v in ((0, 10.0), (1, 12.0), (2, 11.0))]
    rows_nat = [{"launch": k, "median_us": v} for k, v in ((0, 10.0), (1, 10.0), (3, 9.0))]
    pr = validate.paired(rows_sel, rows_nat)
    assert pr == [1.0, 1.2], f"paired: only launches with both, selected / native each: {pr}"


def test_ratio_interval():
    iv = validate.ratio_interval([1.10, 1.12, 1.11, 1.09])
    assert iv and iv[1] > 1.0 and iv[0] < iv[2] < 1.14 and \
        validate.ratio_interval([0.8, 1.3])[1] < 1 and \
        validate.ratio_interval([1.2]) is None, \
        f"ratio interval: consistent 10 % slower launches are slower beyond noise " \
        f"({iv}); two launches that disagree are not; one launch has no interval"


def test_ratio_interval_p():
    iv = validate.ratio_interval([1.10, 1.12, 1.11, 1.09])
    assert len(iv) == 4 and iv[3] < 0.001, \
        f"ratio interval: consistent 10 % slower launches have a small p ({iv[3]:.2g})"


def test_holm():
    assert validate.holm([0.001, 0.02, 0.04, 0.5]) == 1 and \
        validate.holm([0.0001, 0.0002, 0.3]) == 2 and validate.holm([0.03] * 20) == 0, \
        "Holm: 0.001 of 4 rejected (< 0.0125), 0.02 not (> 0.0167); twenty points at 0.03 " \
        "are what chance gives (none rejected)"


def test_profile_points():
    # validate --profile: the profile's points, in the middle of each
    # message class (the tuner measured its bounds: tune --profile)
    fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                           "profile.json")
    a = type("A", (), {"profile": fixture, "colls": "all"})
    t = type("T", (), {"p": 32, "node": 8})
    plan = validate.profile_plan(a, t, {"allreduce", "bcast", "allgather", "alltoall",
                                        "alltoallv", "barrier"})
    assert plan == {"allreduce": [(8, [12]), (32, [1536])], "bcast": [(16, [98304])],
                    "allgather-1ppn": [(4, [384])], "alltoallv": [(16, [24576])],
                    "barrier": [(32, [4])]}, \
        f"each measurable entry at its class's middle (3 * 2^(k-2)), a v-collective's " \
        f"too; one rank per node under the tuner's shaped key; the entries tune --profile " \
        f"sets aside left out: {plan}"
    # a profile of a collx that gave the v-collectives no class (msg_hi null)
    with tempfile.TemporaryDirectory() as d:
        a.profile = os.path.join(d, "old.json")
        with open(a.profile, "w") as f:
            json.dump({"profile": [{"collective": "alltoallv", "comm_size": 16, "msg_lo": 0,
                                    "msg_hi": None, "seconds": 0.3}]}, f)
        plan = validate.profile_plan(a, t, {"alltoallv"})
    assert plan == {"alltoallv": [(16, [512, 32768])]}, \
        f"any sizes (an older profile) between profile.ANY_SIZES: {plan}"


if __name__ == "__main__":
    helpers.run_module(globals())
