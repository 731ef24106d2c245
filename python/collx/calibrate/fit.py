"""The fit: SMPI's message model made to cost what calibench measured.

SMPI charges a message of m bytes on route r

    o_s(m)  on the sender (smpi/os, smpi/ois), then
    lat_r * lf(m) + m / (bw_r * bf(m))   in flight, then
    o_r(m)  on the receiver (smpi/or),

where lat_r and bw_r are the route's in the platform (a node's loopback
link; two nodes' links), and (SimGrid 3.32) no overhead at all to a
blocking message of smpi/send-is-detached-thresh bytes or more. SimGrid's
own options make o_s, o_r, lf and bf one function for every route; its
callbacks, which collx registers for a program linked with it
(src/core/util/smpi_routes.cpp), take them per route. So:

1. Per route, the overheads are what the sender and the receiver
   measured for a burst (calibench `send`, `recv`) at the sizes where a
   burst's gap is overhead's (`stream` at most half the ping-pong: the
   messages pipeline); above, where the gap is the transfer's (a
   bandwidth, a rendezvous), the last such overheads go on, and the rest
   is the transfer's, so that a network's bandwidth stays in its links,
   where messages share it. Never more than leaves the transfer a tenth
   of the ping-pong; none from DETACHED bytes up, where SMPI charges none.
2. Each route's transfer target x_r(m) = ping-pong - o_s - o_r; its
   latency is x_r at the smallest size, its bandwidth the slope at the
   largest sizes; per size its own factors lf_r(m), bf_r(m) make
   lat_r * lf_r + (m / bw_r) / bf_r = x_r exactly (bf_r = 1 where the
   latency can take the rest).
3. A program without collx gets SimGrid's global options: factors 1 and
   per size the overheads that keep both routes' relative errors least
   (SimGrid cannot say that a TCP message costs its sender more CPU than
   a shared-memory one); docs/guide/calibrate.md says what that costs.
4. What SMPI then does differently is measured by simulating calibench
   on the platform: `corrections` add the difference to the routes'
   one-way times, and the fit runs again (main.py).

Everything here is pure: measurements in, numbers out (the unit tests
feed it recorded measurements)."""
# the transfer keeps at least this share of a ping-pong (step 1)
TRANSFER_SHARE = 0.1
# a burst whose gap is at most this share of the ping-pong is overhead's
OVERHEAD_BOUND = 0.5
# a burst's gap over a lone message's ping-pong by this: the sustained rate counts
SUSTAINED_RATIO = 1.25
# SMPI's smpi/send-is-detached-thresh (the platforms write it): a blocking
# message of this size or more is charged no overhead, only its transfer
DETACHED = 65536
# 1 / bf at least this (bf at most 1000: the bandwidth part never vanishes)
U_MIN = 1e-3


def route_overheads(T, S, R):
    """(o_s, o_r) for a ping-pong T, a burst's send S and receive R
    (seconds): S and R, scaled down together where they pass the budget
    T (1 - TRANSFER_SHARE)."""
    budget = T * (1 - TRANSFER_SHARE)
    s, r = max(S, 0.0), max(R, 0.0)
    if s + r <= budget:
        return s, r
    if s >= r:   # the larger keeps what it can; the smaller the rest
        s = min(s, budget)
        return s, max(0.0, budget - s)
    r = min(r, budget)
    return max(0.0, budget - r), r


def sustained(T, G):
    """{bytes: seconds} where a burst's gap G passes a lone message's
    ping-pong T by more than SUSTAINED_RATIO: the network cannot keep up a
    lone message's rate (a token bucket lets one message through at the
    line's peak, a busy link), and a collective's messages, which follow
    each other, see the gap. Those sizes' one-way target is G."""
    return {m: G[m] for m in T if m in G and G[m] > SUSTAINED_RATIO * T[m]}


def overhead_series(sizes, T, S, R, G):
    """([o_s], [o_r]) of one route at sizes from its ping-pong T, burst
    send S and receive R, stream gap G ({bytes: seconds} each): measured
    where the gap is overhead's, carried on above (step 1)."""
    o_s, o_r, last = [], [], None
    for m in sizes:
        if last is None or G[m] <= OVERHEAD_BOUND * T[m]:
            last = route_overheads(T[m], S[m], R[m])
        s, r = last
        budget = T[m] * (1 - TRANSFER_SHARE)
        if s + r > budget:
            s, r = route_overheads(T[m], s, r)
        o_s.append(s)
        o_r.append(r)
    return o_s, o_r


def rate_through_origin(points):
    """Bytes per second b that fits t = m / b best in relative terms over
    {m: t} (sizes of 4 KiB to 4 MiB where there are, else all: below,
    a copy's time is its call's, and a message's costs hide it), or None."""
    use = {m: t for m, t in points.items() if 4096 <= m <= (4 << 20) and t > 0}
    use = use or {m: t for m, t in points.items() if m > 0 and t > 0}
    if not use:
        return None
    q = [m / t for m, t in use.items()]
    return sum(v * v for v in q) / sum(q)


def geometry(sizes, x):
    """(latency s, bandwidth B/s) of a route from its transfer targets
    {m: s}: x at the smallest size, and the slope over the upper half of
    the sizes (m / x at the largest where the slope is not positive)."""
    lat = max(x[sizes[0]], 1e-9)
    hi = sizes[-1]
    mid = sizes[len(sizes) // 2] if len(sizes) > 2 else sizes[0]
    slope = (x[hi] - x[mid]) / (hi - mid) if hi > mid else 0.0
    bw = 1.0 / slope if slope > 0 else hi / max(x[hi], 1e-12)
    return lat, bw


def solve_factors(m, routes):
    """(lf, u = 1/bf) for size m from [(lat_r, bw_r, x_r, weight_r)]: one
    route keeps u = 1 where its latency can take the rest; two or more
    solve in weighted relative least squares with lf >= 0, u >= U_MIN."""
    rows = [(w * lat / x, w * (m / bw) / x, w) for lat, bw, x, w in routes if x > 0]
    if not rows:
        return 1.0, 1.0
    if len(rows) == 1:
        a, b, w = rows[0]
        lf = (w - b) / a
        return (lf, 1.0) if lf >= 0 else (0.0, max(w / b, U_MIN))
    saa = sum(a * a for a, _, _ in rows)
    sbb = sum(b * b for _, b, _ in rows)
    sab = sum(a * b for a, b, _ in rows)
    sa, sb = sum(a * w for a, _, w in rows), sum(b * w for _, b, w in rows)
    det = saa * sbb - sab * sab
    cands = []
    if det > 1e-12 * saa * sbb:
        lf, u = (sa * sbb - sb * sab) / det, (sb * saa - sa * sab) / det
        if lf >= 0 and u >= U_MIN:
            cands.append((lf, u))
    cands += [(0.0, max(sb / sbb, U_MIN)), (max((sa - U_MIN * sab) / saa, 0.0), U_MIN),
              (max((sa - sab) / saa, 0.0), 1.0)]   # the last: the single route's choice

    def err(c):
        return sum((a * c[0] + b * c[1] - w) ** 2 for a, b, w in rows)
    return min(cands, key=err)


class Fit:
    """The fitted model: sizes; per size the global o_s, o_r (what a
    program without collx gets, with factors 1); per route its (lat, bw),
    transfer targets and its own overheads and factors (route_os,
    route_or, route_lf, route_bf: what a program linked with collx gets,
    src/core/util/smpi_routes.cpp)."""

    def __init__(self, sizes, geo, targets):
        self.sizes, self.geo, self.targets = sizes, geo, targets
        self.o_s, self.o_r = [], []
        self.route_os, self.route_or, self.route_lf, self.route_bf = {}, {}, {}, {}

    def predict(self, route, m, routes=True):
        """The model's one-way ping-pong for route at a fitted size
        (seconds), by the formula (what SMPI does besides is in the
        corrections): with the route's own overheads and factors, or
        (routes=False) the global overheads and factors 1. SMPI charges
        no overhead to a blocking message of DETACHED bytes or more."""
        i = self.sizes.index(m)
        lat, bw = self.geo[route]
        if routes:
            o = self.route_os[route][i] + self.route_or[route][i]
            x = lat * self.route_lf[route][i] + m / (bw * self.route_bf[route][i])
        else:
            o, x = self.o_s[i] + self.o_r[i], lat + m / bw
        return (o if m < DETACHED else 0.0) + x


def compromise(T, x, weights):
    """The global overheads' sum at one size for programs without the
    routes' own: the o minimizing sum_r w_r ((o + x_r - T_r) / T_r)^2 (the
    smaller route's relative error weighs as much as the larger's), not
    below 0. T, x: {route: seconds}."""
    num = sum(weights.get(r, 1.0) * (T[r] - x[r]) / T[r] ** 2 for r in T)
    den = sum(weights.get(r, 1.0) / T[r] ** 2 for r in T)
    return max(num / den, 0.0)


def fit(pingpong, send, recv, stream, corrections=None, geo=None, weights=None):
    """The Fit of routes' measurements: pingpong, send, recv, stream as
    {route: {bytes: seconds}} at the same sizes; corrections {route:
    {bytes: seconds}} added to a route's one-way time (what SMPI does
    besides the formula, measured by simulating); geo {route: (lat, bw)}
    where a route's geometry is fixed (a platform given; None: derived
    from its targets, as a route not named is); weights {route: w} in the
    global compromise (1 where not named: a route taken from a base
    platform weighs less than the measured)."""
    routes = list(pingpong)
    weights, corrections = weights or {}, corrections or {}
    sizes = sorted(set.intersection(*(set(pingpong[r]) for r in routes)))
    if len(sizes) < 2:
        raise ValueError("the routes share fewer than two sizes")
    over = {}
    for r in routes:   # SMPI charges none at DETACHED and above: the transfer takes it
        os_, or_ = overhead_series(sizes, pingpong[r], send[r], recv[r], stream[r])
        over[r] = ([o if m < DETACHED else 0.0 for o, m in zip(os_, sizes)],
                   [o if m < DETACHED else 0.0 for o, m in zip(or_, sizes)])
    T = {r: {m: pingpong[r][m] + corrections.get(r, {}).get(m, 0.0) for m in sizes}
         for r in routes}
    targets = {r: {m: max(T[r][m] - over[r][0][i] - over[r][1][i],
                          TRANSFER_SHARE * pingpong[r][m]) for i, m in enumerate(sizes)}
               for r in routes}
    given, F = dict(geo or {}), None
    geo = {}
    for r in routes:   # a given geometry may leave its latency (None) to the targets
        lat, bw = geometry(sizes, targets[r])
        g = given.get(r, (None, None))
        geo[r] = (lat if g[0] is None else g[0], bw if g[1] is None else g[1])
    F = Fit(sizes, geo, targets)
    for r in routes:
        F.route_os[r], F.route_or[r] = over[r]
        lat, bw = geo[r]
        pairs = [solve_factors(m, [(lat, bw, targets[r][m], 1.0)]) for m in sizes]
        F.route_lf[r] = [f for f, _ in pairs]
        F.route_bf[r] = [1.0 / u for _, u in pairs]
    for i, m in enumerate(sizes):
        if m >= DETACHED:
            F.o_s.append(0.0)
            F.o_r.append(0.0)
            continue
        x = {r: geo[r][0] + m / geo[r][1] for r in routes}
        total = compromise({r: pingpong[r][m] for r in routes}, x, weights)
        own = sum(over[r][0][i] + over[r][1][i] for r in routes)
        share = sum(over[r][0][i] for r in routes) / own if own > 0 else 0.5
        F.o_s.append(total * share)
        F.o_r.append(total * (1 - share))
    return F


def _g(v):
    return f"{v:.6g}"


def overhead_option(sizes, values):
    """SMPI's piecewise overhead "start:seconds:seconds_per_byte;...":
    linear between the measured sizes, the last slope (not below 0)
    beyond. SMPI applies a section to sizes above its start, so each
    starts one byte below its size."""
    out = []
    for i, m in enumerate(sizes):
        if i + 1 < len(sizes):
            b = (values[i + 1] - values[i]) / (sizes[i + 1] - m)
        else:
            b = max((values[i] - values[i - 1]) / (m - sizes[i - 1]), 0.0) if i else 0.0
        a = values[i] - b * m
        if i + 1 == len(sizes) and a < 0:   # a steep last slope: keep it through zero
            a = 0.0
        start = 0 if i == 0 else m - 1
        out.append(f"{start}:{_g(a)}:{_g(b)}")
    return ";".join(out)


def factor_option(sizes, values):
    """SMPI's piecewise factor "start:factor;...": each measured size's
    factor from that size up (SMPI applies a factor section to sizes at
    or above its start), the first from 0."""
    return ";".join(f"{0 if i == 0 else m}:{_g(v)}" for i, (m, v) in enumerate(zip(sizes, values)))


def sync_values(node_sync, default_rank=3e-8):
    """(sync, sync_rank, call, what was estimated) from node_sync's rows
    (measured.read_node_sync): sync the exchange of 2 ranks, sync_rank the
    slope to the largest exchange (estimated where only 2 ranks ran)."""
    ex = node_sync.get("exchange", {})
    if 2 not in ex or "call" not in node_sync:
        raise ValueError("node_sync measured no exchange of 2 ranks")
    top = max(ex)
    estimated = []
    if top > 2:
        rank = max((ex[top] - ex[2]) / (top - 2), 0.0)
    else:
        rank = default_rank
        estimated.append("sync_rank")
    return ex[2], rank, max(node_sync["call"], 0.0), estimated
