"""What calibench and node_sync measured, read from their CSVs
(bench/calibench.c, bench/node_sync.c), and whether it is steady enough to
fit: a point whose median is far above its minimum was disturbed (another
process on the core, an unbound rank), and a fit to it would carry the
disturbance into every prediction."""
from collx.csvio import read_rows

KINDS = ("pingpong", "send", "recv", "stream")
ROUTES = ("node", "net")

# a point is noisy when its median is this much above its minimum ...
NOISY_RATIO = 1.5
# ... and a route is too noisy to fit when this share of its points are
NOISY_SHARE = 0.25


class NotFittable(ValueError):
    """The measurements cannot give a calibration; the text says why and
    what to do."""


class Measured:
    """route -> kind -> {bytes: median seconds} (and the minima), the
    local rates' rows, the node's synchronization."""

    def __init__(self, rows, sync=None):
        self.rows = list(rows)
        self.median, self.min = {}, {}
        for r in rows:
            key = (r["route"], r["kind"])
            m = int(r["bytes"])
            self.median.setdefault(key, {})[m] = float(r["median_s"])
            self.min.setdefault(key, {})[m] = float(r["min_s"])
        self.sync = dict(sync or {})
        self.call = None   # the MPI's 8-B gather, median r in seconds, where measured
        self.collx_call = None   # collx's binomial 8-B gather, likewise

    def routes(self):
        """The message routes measured (node, net), in that order."""
        return [r for r in ROUTES if all((r, k) in self.median for k in KINDS)]

    def series(self, route, kind):
        """{bytes: median seconds} of a route's kind ({} where not measured)."""
        return dict(self.median.get((route, kind), {}))

    def sizes(self, route):
        """The sizes every kind of the route has, ascending."""
        common = None
        for k in KINDS:
            s = set(self.median.get((route, k), {}))
            common = s if common is None else common & s
        return sorted(common or ())

    def local(self, kind):
        """{bytes: median seconds} of memcpy ("copy") or MPI_Reduce_local
        ("reduce") on one rank."""
        return self.series("local", kind)

    def noisy_points(self, route):
        """[(kind, bytes, median/min)] of the route's disturbed points."""
        out = []
        for k in KINDS:
            for m, med in sorted(self.median.get((route, k), {}).items()):
                lo = self.min[(route, k)][m]
                if lo > 0 and med / lo > NOISY_RATIO:
                    out.append((k, m, med / lo))
        return out

    def check(self):
        """NotFittable unless there is a route with sizes to fit and no
        route is too noisy."""
        routes = self.routes()
        for r in ROUTES:
            lacks = [k for k in KINDS if (r, k) not in self.median]
            if r not in routes and len(lacks) < len(KINDS):
                raise NotFittable(f"route {r} lacks {', '.join(lacks)}: the measurements "
                                  "are cut (calibench stopped early, or the file was cut); "
                                  "measure again")
        if not routes:
            raise NotFittable("calibench measured no message route: the launch needs at "
                              "least two ranks on one node (or one rank on each of two "
                              "nodes); e.g. --launch \"mpirun -n 2 --bind-to core\"")
        for r in routes:
            if len(self.sizes(r)) < 2:
                raise NotFittable(f"route {r}: fewer than two message sizes measured; "
                                  "give calibench sizes from 1 B up (-m 1:4M)")
            bad = self.noisy_points(r)
            points = sum(len(self.median[(r, k)]) for k in KINDS)
            if len(bad) > NOISY_SHARE * points:
                worst = max(bad, key=lambda b: b[2])
                raise NotFittable(
                    f"route {r}: too noisy to fit ({len(bad)} of {points} points have a "
                    f"median over {NOISY_RATIO}x their minimum; worst {worst[0]} at "
                    f"{worst[1]} B: {worst[2]:.1f}x). Run on an idle machine with one "
                    "rank per core, bound (mpirun --bind-to core), or with more "
                    "repetitions (--reps)")
        return routes


def best_rows(launches, key=("route", "kind", "bytes"), value="median_s"):
    """The rows of several launches' CSVs with, per key, the launch whose
    value is least (in the first launch's order)."""
    best = {}
    for rows in launches:
        for r in rows:
            k = tuple(r[f] for f in key)
            if k not in best or float(r[value]) < float(best[k][value]):
                best[k] = r
    return list(best.values())


def read_calibench(path):
    """calibench's rows (route, kind, bytes, median_s, min_s, iters)."""
    rows = read_rows(path)
    need = {"route", "kind", "bytes", "median_s", "min_s"}
    if rows and not need <= set(rows[0]):
        raise NotFittable(f"{path}: not calibench's CSV (columns {sorted(rows[0])})")
    return rows


def read_node_sync(path):
    """node_sync's rows as {"call": s, "exchange": {ranks: s}, "handoff": s}."""
    out = {"exchange": {}}
    for r in read_rows(path):
        if r["metric"] == "exchange":
            out["exchange"][int(r["ranks"])] = float(r["seconds"])
        else:
            out[r["metric"]] = float(r["seconds"])
    return out
