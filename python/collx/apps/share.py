"""What COLLX_STATS's JSON says about an application: the collectives it
calls, the time it spends in them and the bound that share allows.

The share f is the average rank's: the time in collectives summed over
ranks (the profile's rank_seconds) over ranks x the job's seconds (from
MPI_Init to MPI_Finalize). Made s times faster, the collectives leave
1 / (1 - f + f/s) as the best end-to-end speed-up (Amdahl); s = infinity
gives the ceiling 1 / (1 - f)."""


def collectives(stats):
    """{collective: calls} of every collective any rank called (the most
    any rank made), from the "served" rows."""
    out = {}
    for r in (stats or {}).get("served", []):
        out[r["collective"]] = out.get(r["collective"], 0) + int(r["calls"])
    return out


def served(stats, coll):
    """{algorithm: calls} that served coll."""
    out = {}
    for r in (stats or {}).get("served", []):
        if r["collective"] == coll:
            out[r["algorithm"]] = out.get(r["algorithm"], 0) + int(r["calls"])
    return out


def fallbacks(stats, coll):
    """The reasons collx gave for coll's calls that the forced algorithm
    did not serve."""
    return sorted({f"{r.get('asked')} -> {r.get('ran')}: {r.get('reason') or r.get('requirement')}"
                   for r in (stats or {}).get("fallbacks", []) if r.get("collective") == coll})


def job_seconds(stats):
    return float(((stats or {}).get("job") or {}).get("seconds") or 0.0)


def coll_seconds(stats, coll=None):
    """The average rank's seconds in collectives (coll: in that one)."""
    st = stats or {}
    ranks = int((st.get("job") or {}).get("ranks") or st.get("ranks") or 1)
    total = sum(float(r["rank_seconds"]) for r in st.get("profile", [])
                if coll is None or r["collective"] == coll)
    return total / ranks


def share(stats):
    """f: the average rank's share of the job in collectives."""
    job = job_seconds(stats)
    return coll_seconds(stats) / job if job > 0 else 0.0


def by_collective(stats):
    """[(collective, seconds, share of the job)], largest first."""
    job = job_seconds(stats) or 1.0
    rows = [(c, coll_seconds(stats, c)) for c in collectives(stats)]
    return sorted(((c, s, s / job) for c, s in rows), key=lambda x: -x[1])


def bound(f, s=float("inf")):
    """The end-to-end speed-up collectives of share f made s times faster
    allow."""
    if s == float("inf"):
        return 1.0 / (1.0 - f) if f < 1 else float("inf")
    return 1.0 / (1.0 - f + f / s)


def top_points(stats, n=4):
    """The n profile rows with the most time (the average rank's):
    [{collective, comm_size, ranks_per_node, nodes, msg_lo, msg_hi, calls,
    seconds}]."""
    st = stats or {}
    ranks = int((st.get("job") or {}).get("ranks") or 1)
    rows = sorted(st.get("profile", []), key=lambda r: -float(r["rank_seconds"]))[:n]
    keys = ("collective", "comm_size", "ranks_per_node", "nodes", "msg_lo", "msg_hi", "calls")
    return [{**{k: r.get(k) for k in keys}, "seconds": float(r["rank_seconds"]) / ranks}
            for r in rows]
