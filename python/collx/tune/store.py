"""Every measurement the tuner made: samples per point (collective,
algorithm, communicator size q, message size m), what served them (column
ran), points an algorithm could not be measured at, and the batches with
their cost. A sample is the median of collbench's run time r over its timed
repetitions; the confidence interval of a point comes from its samples.
Per (collective, algorithm, communicator size) also its setup on a new
communicator: collbench's first_us minus the median at a run's first
point (bench/README.md, "First use"), which decide.py charges to a
profile's calls."""
import json
import math

from collx.csvio import write_rows

# two-sided 95 % quantiles of Student's t, by degrees of freedom
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26,
       10: 2.23, 15: 2.13, 20: 2.09, 30: 2.04}


def t95(df):
    if df >= 30:
        return 1.96
    return T95[max(k for k in T95 if k <= df)]


# one-sided 95 % quantiles of Student's t (two-sided 90 %), by degrees of freedom
T95_ONE = {1: 6.31, 2: 2.92, 3: 2.35, 4: 2.13, 5: 2.02, 6: 1.94, 7: 1.89, 8: 1.86, 9: 1.83,
           10: 1.81, 15: 1.75, 20: 1.72, 30: 1.70}


def t95_one(df):
    if df >= 30:
        return 1.645
    return T95_ONE[max(k for k in T95_ONE if k <= df)]


def paired_faster(d, need, floor, sure=0.0):
    """d: ln(T_a / T_b) per launch that measured both. a is faster in
    every launch, by need in the mean, and beyond the noise: the one-sided
    95 % bound of the mean (Student's t, its standard error at least
    floor / 1.96, the noise floor's) below -sure (0: faster at all)."""
    n = len(d)
    if n < 2 or not all(x < 0 for x in d):
        return False
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    se = max(sd / math.sqrt(n), floor / 1.96)
    return -mean >= need and mean + t95_one(n - 1) * se < -sure


def unpaired_faster(x, y, need, floor, sure=0.0):
    """x, y: two algorithms' ln(T / T native) per launch, from different
    launches (each launch's own offset cancelled by its native). The
    first is faster in every repeat (its largest below the other's
    smallest), by need in the mean, and beyond the noise (Welch's
    one-sided 95 % bound, the fewer samples' degrees of freedom, below
    -sure)."""
    if len(x) < 2 or len(y) < 2 or not max(x) < min(y):
        return False
    mx, my = sum(x) / len(x), sum(y) / len(y)
    var = sum(sum((v - mv) ** 2 for v in vs) / (len(vs) - 1) / len(vs)
              for vs, mv in ((x, mx), (y, my)))
    se = max(math.sqrt(var), floor / 1.96)
    return my - mx >= need and mx - my + t95_one(min(len(x), len(y)) - 1) * se < -sure


def t_upper(t, df):
    """P(T > t) for Student's t with df degrees of freedom: half the
    regularized incomplete beta I_x(df/2, 1/2), x = df / (df + t^2)."""
    if t <= 0:
        return 1.0 - t_upper(-t, df) if t < 0 else 0.5
    return 0.5 * beta_reg(df / (df + t * t), df / 2.0, 0.5)


def beta_reg(x, a, b):
    """The regularized incomplete beta I_x(a, b), by its continued fraction
    (Lentz), on the side where it converges fast."""
    if x <= 0.0 or x >= 1.0:
        return 0.0 if x <= 0.0 else 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - beta_reg(1.0 - x, b, a)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
                     a * math.log(x) + b * math.log(1 - x)) / a
    tiny, c, d = 1e-300, 1.0, 0.0
    f = None
    for i in range(400):
        k = i // 2
        if i == 0:
            num = 1.0
        elif i % 2 == 0:
            num = k * (b - k) * x / ((a + 2 * k - 1) * (a + 2 * k))
        else:
            num = -(a + k) * (a + b + k) * x / ((a + 2 * k) * (a + 2 * k + 1))
        d = 1.0 + num * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + num / c
        c = c if abs(c) > tiny else tiny
        f = c * d if f is None else f * c * d
        if abs(c * d - 1.0) < 1e-12:
            break
    return front * (f - 1.0)


class Stat:
    """Mean and 95 % confidence half-width of a point's samples, plus the
    noise floor: the smallest relative half-width ever assumed (one sample,
    or samples that agree exactly as SMPI's do)."""

    def __init__(self, samples, floor):
        n = len(samples)
        self.n, self.mean = n, sum(samples) / n
        sd = math.sqrt(sum((x - self.mean) ** 2 for x in samples) / (n - 1)) if n > 1 else 0
        self.se = sd / math.sqrt(n)   # standard error of the mean
        self.half = max(t95(n - 1) * self.se if n > 1 else 0, floor * self.mean)

    @property
    def lo(self):
        return self.mean - self.half

    @property
    def hi(self):
        return self.mean + self.half

    def sigma_ln(self):
        """Standard deviation of ln(mean), from the 95 % half-width."""
        return self.half / self.mean / 1.96 if self.mean > 0 else 1.0


def grows(why):
    """A failure that larger points share: out of memory or of time."""
    return why.startswith(("memory:", "timeout:"))


def setup_of(row):
    """An algorithm's setup on a new communicator in us from one of
    collbench's rows: its first call there (first_us) minus the median,
    at least 0; None where the row has no first_us (not the run's first
    point, or a collbench from before the column)."""
    first = row.get("first_us")
    if first in (None, ""):
        return None
    return max(0.0, float(first) - float(row["median_us"]))


def setups_of(rows):
    """[(algorithm, setup us)] of collbench's rows that measured one: an
    algorithm's first call on a new communicator that it served itself
    (not a fallback's, nor `selected`'s)."""
    return [(r["alg"], x) for r in rows
            if (x := setup_of(r)) is not None and r["ran"] == r["alg"]]


def case_cost(row):
    """What measuring one case cost: collbench's host_s (SMPI: the
    simulation's CPU seconds), else its timed and warm-up calls' time."""
    if row.get("host_s"):
        return float(row["host_s"])
    calls = int(row.get("iters") or 1) + int(row.get("warmup") or 0)
    return calls * float(row["median_us"]) * 1e-6


class Store:
    def __init__(self, noise_floor):
        self.floor = noise_floor
        self.samples = {}   # (coll, alg, q, m) -> [us]
        self.host = {}      # (coll, alg, q, m) -> [cost of each sample's case, s]
        self.ran = {}       # (coll, alg, q, m) -> set of column-ran values
        self.ppn = {}       # (coll, q) -> ranks per node collbench saw
        self.setups = {}    # (coll, alg, q) -> [setup on a new communicator, us]
        self.failed = {}    # (coll, alg, q, m) -> why
        self.batches = []   # dicts: what ran, its cost, its outcome
        # (coll, alg, q, m) -> the launch (batch index) of each sample, None
        # where unknown: samples of two algorithms from one launch compare
        # without the launch's own offset (paired)
        self.launches = {}

    # ---------------------------------------------------------------- adding
    def add_rows(self, coll, q, rows, batch, launch=None):
        """launch: the run's index in batches (its samples pair by it)."""
        for r in rows:
            key = (coll, r["alg"], q, int(r["size_bytes"]))
            self.samples.setdefault(key, []).append(float(r["median_us"]))
            self.launches.setdefault(key, []).append(launch)
            self.host.setdefault(key, []).append(case_cost(r))
            self.ran.setdefault(key, set()).add(r["ran"])
            self.ppn[(coll, q)] = int(r["ppn"])
        for alg, us in setups_of(rows):
            self.add_setup(coll, alg, q, us)
        batch["rows"] = len(rows)

    def add_setup(self, coll, alg, q, us):
        self.setups.setdefault((coll, alg, q), []).append(us)

    def fail(self, coll, alg, q, m, why):
        self.failed[(coll, alg, q, m)] = why

    # ---------------------------------------------------------------- asking
    def stat(self, coll, alg, q, m):
        s = self.samples.get((coll, alg, q, m))
        return Stat(s, self.floor) if s else None

    def paired(self, coll, a, b, q, m):
        """[ln(T_a / T_b)] per launch that took one sample of each at (q, m)
        (a launch's own offset cancels: two launches of one case can time
        further apart than the algorithms do)."""
        def by_launch(alg):
            ids = self.launches.get((coll, alg, q, m), [])
            xs = self.samples.get((coll, alg, q, m), [])
            once = {i for i in ids if i is not None and ids.count(i) == 1}
            return {i: x for i, x in zip(ids, xs) if i in once}
        ta, tb = by_launch(a), by_launch(b)
        return [math.log(ta[i] / tb[i]) for i in sorted(set(ta) & set(tb))
                if ta[i] > 0 and tb[i] > 0]

    def log_ratio(self, coll, a, b, q, m):
        """ln(T_a / T_b) at (q, m), both measured: the mean of their ratios
        in the launches that measured both (paired), else, where each ran
        beside native in launches of its own (a variant's knobs are its
        run's), the difference of their mean ratios to that native; else
        of their means. Launch offsets cancel: a variant's own runs at p = 2
        timed 10-16 % faster than its algorithm's where the knob changes
        nothing (one node: no leaders' collective; issue 62)."""
        d = self.paired(coll, a, b, q, m)
        if len(d) >= 2:
            return sum(d) / len(d)
        ra, rb = (self.paired(coll, x, "native", q, m) for x in (a, b))
        if len(ra) >= 2 and len(rb) >= 2:
            return sum(ra) / len(ra) - sum(rb) / len(rb)
        return math.log(self.stat(coll, a, q, m).mean / self.stat(coll, b, q, m).mean)

    def setup(self, coll, alg, q):
        """alg's setup on a new communicator of q ranks in us (the median
        of its samples), or None where no run measured it."""
        xs = sorted(self.setups.get((coll, alg, q), ()))
        if not xs:
            return None
        k = len(xs) // 2
        return xs[k] if len(xs) % 2 else (xs[k - 1] + xs[k]) / 2

    def usable(self, coll, alg, q, m):
        """A measurement of alg itself (not of a fallback that served it)."""
        key = (coll, alg, q, m)
        return key in self.samples and self.ran.get(key) == {alg}

    def fell_back(self, coll, alg, q, m):
        key = (coll, alg, q, m)
        return key in self.samples and self.ran.get(key) != {alg}

    def cannot(self, coll, alg, q, m):
        """alg cannot serve (q, m): it failed there, or ran out of memory
        or time at a smaller point (q' <= q, m' <= m: presumed to do so
        here too; a crash is presumed nowhere else), or a fallback served
        it."""
        if self.fell_back(coll, alg, q, m) or (coll, alg, q, m) in self.failed:
            return True
        return any(c == coll and a == alg and qq <= q and mm <= m and grows(why)
                   for (c, a, qq, mm), why in self.failed.items())

    def measured_points(self, coll, alg):
        return [(q, m) for (c, a, q, m) in self.samples if c == coll and a == alg
                and self.usable(coll, alg, q, m)]

    def cases(self):
        """Samples taken (cases run)."""
        return sum(len(v) for v in self.samples.values())

    def pairs(self):
        """(algorithm, point) pairs measured at least once."""
        return len(self.samples)

    def cost(self):
        return sum(b["cost"] for b in self.batches)

    # ---------------------------------------------------------------- output
    def write_csv(self, path):
        rows = []
        for (c, a, q, m), xs in sorted(self.samples.items()):
            st = self.stat(c, a, q, m)
            for i, x in enumerate(xs):
                host = self.host.get((c, a, q, m), [])
                rows.append({"coll": c, "alg": a, "p": q, "ppn": self.ppn.get((c, q), ""),
                             "size_bytes": m, "sample": i, "us": f"{x:.3f}",
                             "host_s": f"{host[i]:.4f}" if i < len(host) else "",
                             "mean_us": f"{st.mean:.3f}", "ci95_us": f"{st.half:.3f}",
                             "ran": "+".join(sorted(self.ran[(c, a, q, m)]))})
        for (c, a, q, m), why in sorted(self.failed.items()):
            rows.append({"coll": c, "alg": a, "p": q, "size_bytes": m, "failed": why})
        write_rows(path, ["coll", "alg", "p", "ppn", "size_bytes", "sample", "us", "mean_us",
                          "ci95_us", "ran", "host_s", "failed"], rows)

    def to_json(self):
        return {"samples": [{"coll": c, "alg": a, "p": q, "size_bytes": m, "us": xs,
                             "ran": sorted(self.ran[(c, a, q, m)]),
                             "host_s": self.host.get((c, a, q, m), []),
                             "launch": self.launches.get((c, a, q, m), [])}
                            for (c, a, q, m), xs in sorted(self.samples.items())],
                "failed": [{"coll": c, "alg": a, "p": q, "size_bytes": m, "why": w}
                           for (c, a, q, m), w in sorted(self.failed.items())],
                "ppn": [{"coll": c, "p": q, "ppn": k} for (c, q), k in sorted(self.ppn.items())],
                "setup": [{"coll": c, "alg": a, "p": q, "us": xs}
                          for (c, a, q), xs in sorted(self.setups.items())],
                "batches": self.batches, "noise_floor": self.floor}

    @classmethod
    def from_json(cls, d):
        s = cls(d["noise_floor"])
        for x in d["samples"]:
            key = (x["coll"], x["alg"], x["p"], x["size_bytes"])
            s.samples[key], s.ran[key] = list(x["us"]), set(x["ran"])
            if x.get("host_s"):
                s.host[key] = list(x["host_s"])
            if len(x.get("launch", ())) == len(x["us"]):   # none before issue 62
                s.launches[key] = list(x["launch"])
        for x in d["failed"]:
            s.failed[(x["coll"], x["alg"], x["p"], x["size_bytes"])] = x["why"]
        for x in d["ppn"]:
            s.ppn[(x["coll"], x["p"])] = x["ppn"]
        for x in d.get("setup", ()):   # a tune.json from before it has none
            s.setups[(x["coll"], x["alg"], x["p"])] = list(x["us"])
        s.batches = d["batches"]
        return s


def save(store, path, extra):
    with open(path, "w") as f:
        json.dump({**extra, "measurements": store.to_json()}, f)
