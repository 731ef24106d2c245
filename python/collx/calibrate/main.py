"""collx calibrate: measure the machine a launch runs on, fit an SMPI
platform to it, and (--check) run the same collectives real and simulated
to say how far the platform's predictions are off (docs/guide/calibrate.md).

    collx calibrate --launch "mpirun -n 2 --bind-to core" --out DIR [--check]
    collx calibrate --from DIR --out DIR2          (fit recorded measurements again)
    collx calibrate --check-only --platform DIR/NAME.xml --launch "..." --out DIR

measure.py takes the measurements, model.py fits and writes the platform,
check_run.py runs the check; this is the command line."""
import argparse
import os
import sys
import tempfile

from collx import tools
from collx.calibrate import platform as plat
from collx.calibrate.check_run import CHECK_COLLS, CHECK_SIZES, run_check
from collx.calibrate.measure import Layout
from collx.calibrate.model import DEFAULT_BASE, calibrate
from collx.calibrate.runs import RunFailed, Where, say


def parser():
    ap = argparse.ArgumentParser(
        prog="collx calibrate", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__)
    ap.add_argument("--launch", help='the words that start the ranks, as you run MPI '
                    'programs: "mpirun -n 2 --bind-to core" (two ranks of one node), '
                    '"mpirun -n 4 --map-by ppr:2:node --bind-to core" (two nodes), srun ...')
    ap.add_argument("--from", dest="from_dir", metavar="DIR",
                    help="fit the measurements an earlier calibrate wrote into DIR "
                    "(calibench.csv, node_sync.csv, layout.txt) instead of measuring")
    ap.add_argument("--add", action="append", metavar="DIR",
                    help="routes an earlier calibrate measured (its --out DIR) that these "
                    "measurements lack, fitted with them: the node's from a launch of two "
                    "ranks on one node, the network's from one rank per node (repeatable)")
    ap.add_argument("--out", required=True, metavar="DIR", help="where the platform goes")
    ap.add_argument("--name", default="calibrated", help="the platform's name (calibrated)")
    ap.add_argument("--base", help="the platform whose network between nodes to take "
                    f"where the launch spans one node (default {DEFAULT_BASE})")
    ap.add_argument("--nodes", type=int, default=16,
                    help="nodes of the written platform when it is not a base's (16)")
    ap.add_argument("--cores", type=int,
                    help="cores per node of the written platform (default: this machine's)")
    ap.add_argument("--sizes", default="1:4M", help="calibench's message sizes (1:4M)")
    ap.add_argument("--reps", type=int, default=7, help="calibench's batches per point (7)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="fits corrected by simulating the platform (3)")
    ap.add_argument("--check", action="store_true",
                    help="after the fit, run the collectives real and simulated")
    ap.add_argument("--check-only", action="store_true",
                    help="only the check, of --platform (an earlier calibration)")
    ap.add_argument("--platform", help="with --check-only: the calibrated platform's XML")
    ap.add_argument("--colls", default=CHECK_COLLS, help=f"the check's ({CHECK_COLLS})")
    ap.add_argument("--algs", help="the check's algorithms (default: every one of each "
                    "collective, native included)")
    ap.add_argument("--check-sizes", default=CHECK_SIZES,
                    help=f"the check's bytes per rank ({CHECK_SIZES})")
    ap.add_argument("--iters", type=int, default=200, help="the check's repetitions (200)")
    ap.add_argument("--rules", metavar="FILE",
                    help="the check also runs these rules (COLLX_RULES, e.g. what collx tune "
                    "--platform wrote for the calibrated platform) as algorithm 'selected': "
                    "the tuned speed-up over native predicted and measured")
    ap.add_argument("--wait", type=int, default=60,
                    help="seconds each collective of the check may wait in all for a machine "
                    "that is not as it was calibrated (its small ping-pong, probed before and "
                    "after each launch, off by a quarter: a VM's cores moved); a launch "
                    "between such probes is done again (60)")
    ap.add_argument("--launches", type=int, default=5,
                    help="real launches of each measurement (calibench, node_sync, the "
                    "check's collectives); per point the best counts (5): a machine whose "
                    "cores move (a VM) can take half again as long in one launch")
    return ap


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        if args.check_only:
            if not (args.platform and args.launch):
                raise ValueError("--check-only needs --platform XML and --launch")
            xml = plat.resolve_platform(args.platform)
            for f in plat.files_of(xml):
                if not os.path.exists(f):
                    raise ValueError(f"platform {args.platform}: {f} missing")
            rec = plat.read_record(xml)
            os.makedirs(args.out, exist_ok=True)
            if rec is None or "layout" not in rec:   # as it is: the layout from the launch
                say(f"{os.path.basename(xml)} has no calibration record: checked as it is "
                    "(no drift probes; the record is not written)" if rec is None else
                    f"{os.path.basename(xml)}: its node from {rec.get('node_from', {}).get('dir', '?')}; "
                    "checked with the launch's layout, its check written to its record"
                    + ("" if rec.get("probe") else " (no drift probes: the record has none)"))
                with tempfile.TemporaryDirectory(prefix="collx-calibrate.") as d:
                    layout = Layout(Where(launch=args.launch).calibench(
                        os.path.join(d, "probe.csv"), "8:8", reps=1))
            else:
                lay = rec["layout"]
                layout = Layout(f"calibench: {lay['p']} ranks; partner on rank 0's node: "
                                f"{1 if lay['ppn'] > 1 else -1}, on another node: "
                                f"{lay['ppn'] if lay['nodes'] > 1 else -1}")
            run_check(args, xml, layout, args.out)
            return 0
        if not (args.launch or args.from_dir):
            raise ValueError("give --launch (measure) or --from DIR (recorded measurements)")
        if args.check and not args.launch:
            raise ValueError("--check runs the collectives on the launch: give --launch")
        os.makedirs(args.out, exist_ok=True)
        xml, layout = calibrate(args, args.out)
        if args.check:
            run_check(args, xml, layout, args.out)
        return 0
    except (ValueError, RunFailed, OSError, tools.ToolNotFound) as e:
        sys.stderr.write(f"collx calibrate: {e}\n")
        return 1
