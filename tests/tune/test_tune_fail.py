#!/usr/bin/python3
"""`collx tune` on a real MPI whose launches fail (issue 62), end to end,
in seconds: a launcher that fails every collbench launch as Open MPI does
with more ranks than slots (its whole message, a sentence over several
lines) makes the tuner exit 1 with that whole message and write no rules
file (an existing one is left as it was); one that fails some launches
gets rules written, and the count and the first failed run's whole
message in the output and the report; a launcher that does not exist
exits 1 and writes nothing.

The launcher is a script that fails the launches it is told to and runs
the others with the real launcher (MPIEXEC and its flags; for Open MPI
also --oversubscribe, and --allow-run-as-root as root: the tuner leaves
this repository's test settings out of a --launch run's environment).

    test_tune_fail.py REPO_ROOT COLLBENCH COLLX_INFO MPIEXEC [MPIEXEC_FLAGS...]"""
import os
import shlex
import subprocess
import sys
import tempfile
import time

ROOT, COLLBENCH, INFO, MPIEXEC, FLAGS = (sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4],
                                         sys.argv[5:])
failures = []

# Open MPI 4.1's mpirun with -n 4 on 2 cores (the message the tuner cut)
SLOTS = """\
--------------------------------------------------------------------------
There are not enough slots available in the system to satisfy the 4
slots that were requested by the application:

  collbench

Either request fewer slots for your application, or make more slots
available for use.

Alternatively, you can use the --oversubscribe option to ignore the
number of available slots when deciding the number of processes to
launch.
--------------------------------------------------------------------------
"""

# FAKEMPI_FAIL: "all" or the numbers of the collbench launches that fail
LAUNCHER = """\
#!/bin/sh
# fakempi -n N PROGRAM ARGS...: the real launcher, but for the collbench
# launches FAKEMPI_FAIL names, which fail as Open MPI does without slots
n=$2
shift 2
case "$1" in
  *collbench*)
    if [ -n "$FAKEMPI_FAIL_CHECK" ]; then
      case " $* " in *" selected "*) echo "collbench: the check fails" >&2; exit 3 ;; esac
    fi
    count=$(( $(cat "$FAKEMPI_COUNT" 2>/dev/null || echo 0) + 1 ))
    echo $count > "$FAKEMPI_COUNT"
    case ",$FAKEMPI_FAIL," in
      *,all,*|*,$count,*) cat "$FAKEMPI_MESSAGE" >&2; exit 1 ;;
    esac ;;
esac
exec {real} -n "$n" "$@"
"""


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def real_launcher():
    """The real launch words: MPIEXEC, its flags, and what Open MPI needs
    here that ./run's environment would have given it."""
    words = [MPIEXEC] + FLAGS
    try:
        version = subprocess.run([MPIEXEC, "--version"], capture_output=True, text=True,
                                 timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        version = ""
    if "Open MPI" in version or "OpenRTE" in version:
        words.append("--oversubscribe")
        if os.geteuid() == 0:
            words.append("--allow-run-as-root")
    return words


def tune(d, fail, out, launch=None, report=None, check_fails=False):
    """Runs collx tune on 2 ranks (allreduce, one algorithm beside native,
    8..64 B, short samples); returns (exit status, stdout + stderr, s)."""
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python"),
           "FAKEMPI_FAIL": fail, "FAKEMPI_COUNT": os.path.join(d, f"count-{fail}"),
           "FAKEMPI_MESSAGE": os.path.join(d, "slots.txt"),
           "FAKEMPI_FAIL_CHECK": "1" if check_fails else ""}
    argv = [sys.executable, "-m", "collx", "tune",
            "--launch", launch or f"{os.path.join(d, 'fakempi')} -n 2",
            "--collbench", COLLBENCH, "--collx-info", INFO, "--colls", "allreduce",
            "--algs", "recursive_doubling", "--no-params", "--sizes", "8:64",
            "--reps", "2", "--iters", "2", "--warmup", "1", "--budget", "15", "--out", out]
    argv += ["--report", report] if report else []
    t0 = time.time()
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=240, cwd=d)
    return p.returncode, p.stdout + p.stderr, time.time() - t0


def whole(message, out):
    """Every line of message is in out (the tuner indents them under |)."""
    return all(line.strip() in out for line in message.splitlines() if line.strip())


with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "slots.txt"), "w") as f:
        f.write(SLOTS)
    fake = os.path.join(d, "fakempi")
    with open(fake, "w") as f:
        f.write(LAUNCHER.format(real=shlex.join(real_launcher())))
    os.chmod(fake, 0o755)

    # ------------------------------------------------------------ every launch fails
    out = os.path.join(d, "none.json")
    rc, text, s = tune(d, "all", out)
    expect(rc == 1, f"every launch failed: exit 1 (got {rc}, {s:.1f} s)")
    expect(whole(SLOTS, text) and "processes to | launch." not in text,
           "the launcher's whole message is shown, none of it cut:\n" + text[-1500:])
    expect("nothing could be measured" in text and "No rules written" in text and
           not os.path.exists(out), "no rules file written, and said so")
    kept = os.path.join(d, "kept.json")
    with open(kept, "w") as f:
        f.write("an earlier file\n")
    rc, text, _ = tune(d, "all", kept)
    expect(rc == 1 and open(kept).read() == "an earlier file\n" and
           "is left as it was" in text, "an existing rules file is left as it was")

    # ------------------------------------------------------------ a launcher that is not there
    rc, text, _ = tune(d, "", os.path.join(d, "nolauncher.json"),
                       launch=f"{os.path.join(d, 'no-such-mpirun')} -n 2")
    expect(rc == 1 and "cannot run" in text and "no-such-mpirun" in text and
           not os.path.exists(os.path.join(d, "nolauncher.json")) and "Traceback" not in text,
           f"a launcher that does not exist: exit 1, said, nothing written: {text[-300:]!r}")

    # ------------------------------------------------------------ some launches fail
    out, rep = os.path.join(d, "some.json"), os.path.join(d, "report")
    rc, text, s = tune(d, "1,3", out, report=rep)
    expect(rc == 0 and os.path.exists(out), f"two launches failed, the rest measured: rules "
           f"written, exit 0 (got {rc}, {s:.1f} s):\n{text[-1500:]}")
    expect("2 of " in text and "runs failed" in text and whole(SLOTS, text),
           "the output says how many runs failed and the first one's whole message")
    md = open(os.path.join(rep, "report.md")).read() if os.path.exists(rep) else ""
    expect("## Runs that failed" in md and "2 of " in md and whole(SLOTS, md) and
           "nan" not in md, "the report says how many runs failed and the first one's "
           "whole message, and has no nan")
    p = subprocess.run([sys.executable, "-m", "collx", "rules", "check", "--collx-info", INFO,
                        out], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    expect(p.returncode == 0 and "evidence: of the 4 grid points the rules serve, " in p.stdout
           and "measured with alternatives" in p.stdout and
           "] evidence: " in text and "grid points they serve: " in text,
           f"rules check passes the file and says how much rests on measurements:\n"
           f"{p.stdout[:800]}")

    # ------------------------------------------------------------ the check fails
    # issue 62: "check: bcast p=2: collbench failed: exit 3", then "the rules
    # load in collx" and exit 0
    out = os.path.join(d, "check.json")
    rc, text, s = tune(d, "", out, check_fails=True)
    expect(rc == 1 and os.path.exists(out) and "CHECK FAILED" in text and
           "the rules load in collx" not in text,
           f"a check run that fails: said, the file written, exit 1 (got {rc}):\n{text[-800:]}")

if failures:
    print(f"{len(failures)} FAILED")
    sys.exit(1)
print("all passed")
