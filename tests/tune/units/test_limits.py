#!/usr/bin/python3
"""limits.py: a failed run's message kept whole (issue 62: Open MPI's "not
enough slots" text was cut mid-sentence, its last 3 lines kept), its gist
in one line from its first paragraph, never a piece from its middle.

    test_limits.py [REPO_ROOT]"""
import os
import sys
import tempfile

import helpers
from collx.tune import limits

# What Open MPI 4.1's mpirun says with more ranks than slots (2 cores, -n 4).
SLOTS = """\
--------------------------------------------------------------------------
There are not enough slots available in the system to satisfy the 4
slots that were requested by the application:

  collbench

Either request fewer slots for your application, or make more slots
available for use.

A "slot" is the Open MPI term for an allocatable unit where we can
launch a process.  The number of slots available are defined by the
environment in which Open MPI processes are run:

  1. Hostfile, via "slots=N" clauses (N defaults to number of
     processor cores if not provided)
  2. The --host command line parameter, via a ":N" suffix on the
     hostname (N defaults to 1 if not provided)
  3. Resource manager (e.g., SLURM, PBS/Torque, LSF, etc.)
  4. If none of a hostfile, the --host command line parameter, or an
     RM is present, Open MPI defaults to the number of processor cores

In all the above cases, if you want Open MPI to default to the number
of hardware threads instead of the number of processor cores, use the
--use-hwthread-cpus option.

Alternatively, you can use the --oversubscribe option to ignore the
number of available slots when deciding the number of processes to
launch.
--------------------------------------------------------------------------
"""


def test_gist_is_the_first_paragraph_whole():
    g = limits.gist(SLOTS)
    assert g == ("There are not enough slots available in the system to satisfy the 4 slots "
                 "that were requested by the application:"), \
        f"the gist: the first paragraph, its lines joined, the frame left out: {g!r}"


def test_gist_of_a_long_paragraph_ends_a_sentence():
    text = "First sentence here. " + "word " * 80 + "\nnext line"
    g = limits.gist(text, limit=100)
    assert g == "First sentence here.", f"cut at the end of a sentence: {g!r}"
    g = limits.gist("x" * 10 + " " + "word " * 80, limit=100)
    assert g.endswith(" ...") and len(g) <= 104 and not g[:-4].endswith(" "), \
        f"no sentence end: cut at a word, said with ...: {g!r}"


def test_gist_skips_simgrid_info_lines():
    text = ("[0.000000] [xbt_cfg/INFO] Configuration change: Set 'smpi/test' to '1e-7'\n"
            "[node-0:0:(1) 0.000000] [smpi/INFO] loaded\n"
            "collbench: no algorithm 'nosuch' for allreduce\n")
    assert limits.gist(text) == "collbench: no algorithm 'nosuch' for allreduce", \
        f"SimGrid's log lines are no message: {limits.gist(text)!r}"


def test_run_keeps_the_whole_message():
    # a long message (more than the 4 KiB and 3 lines kept before) on stderr, exit 1
    body = SLOTS * 3
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "msg.txt")
        with open(path, "w") as f:
            f.write(body)
        out = limits.run([sys.executable, "-c",
                          f"import sys; sys.stderr.write(open({path!r}).read()); sys.exit(1)"],
                         timeout=30)
    assert not out.ok and out.rc == 1, f"the run failed: {out.rc}"
    assert out.message() == body.strip("\n").rstrip(), \
        "the whole message is kept, as written"
    assert out.why() == "exit 1: " + limits.gist(SLOTS), f"why: exit and gist: {out.why()!r}"
    rep = out.report()
    assert rep.startswith("command: ") and "ended: exit 1; its message:" in rep and \
        all(f"  | {line}".rstrip() in rep.splitlines() for line in SLOTS.splitlines()), \
        f"report: the command, how it ended and every line of the message:\n{rep[:400]}"


def test_huge_stderr_keeps_its_ends():
    with tempfile.TemporaryFile("w+b") as f:
        f.write(b"A" * limits.KEEP_ERR + b"B" * 1000 + b"C" * limits.KEEP_ERR)
        text = limits.keep_ends(f)
    assert text.startswith("A" * limits.KEEP_ERR) and text.endswith("C" * limits.KEEP_ERR) \
        and "[... 1000 bytes left out ...]" in text and "B" not in text, \
        "beyond twice KEEP_ERR: the first and last KEEP_ERR bytes, what lies between said"


def test_no_message():
    out = limits.Outcome(1, "", 0, 0, 0, "", ["false"])
    assert out.why() == "exit 1" and out.report() == \
        "command: false\nended: exit 1, with no message on stderr", \
        f"a run that says nothing: {out.why()!r} / {out.report()!r}"


if __name__ == "__main__":
    helpers.run_module(globals())
