"""The papers' numbers we compare with, transcribed into published/."""
import os

from collx.csvio import read_commented

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "published")

# Bhowmik & Bodele 2019, abstract: topology-aware rank reordering makes
# MPI_Allgather (ring, recursive doubling) 12-40 % faster (30 nodes x 8 cores,
# two 1 Gbps switches; 4, 8 and 16 nodes measured).
BHOWMIK_GAIN_PCT = (12, 40)


def traff():
    """Träff Tables 1-3: (table, problem, b) -> row (gather_min, g2_min,
    gatherv_min, tuw_min ...)."""
    rows = read_commented(os.path.join(DIR, "traff_published.csv"))
    return {(int(r["table"]), r["problem"], int(r["b"])): r for r in rows}


def proficz():
    """Proficz 2020 Tables 3-4: (table, kfloats, delay ms) -> (diff ms, ratio)."""
    rows = read_commented(os.path.join(DIR, "proficz_published.csv"))
    return {(int(r["table"]), int(r["size_kfloats"]), int(r["max_delay_ms"])):
            (float(r["diff_ms"]), float(r["ratio"])) for r in rows}


def proficz_fft():
    """Proficz 2020 Table 5: algorithm -> row (total_s, run_s, elapsed_s)."""
    rows = read_commented(os.path.join(DIR, "proficz_fft_published.csv"))
    return {r["algorithm"]: r for r in rows}


def paznikov():
    """Paznikov 2024's crossovers of the one-sided binomial broadcast over the
    linear one: dicts platform, vary ('m' or 'p'), p, m_bytes, fig."""
    rows = read_commented(os.path.join(DIR, "paznikov_published.csv"))
    return [dict(r, p=int(r["p"]), m_bytes=int(r["m_bytes"])) for r in rows]


def parsons():
    """Parsons & Pai 2014: (variant, collective) -> average speed-up
    (hier over flat; hier_ms over hier under collective 'all')."""
    rows = read_commented(os.path.join(DIR, "parsons_published.csv"))
    return {(r["variant"], r["collective"]): float(r["speedup"]) for r in rows}
