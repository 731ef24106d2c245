"""The papers' numbers we compare with, transcribed into published/."""
import os

from collx.csvio import read_commented

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "published")


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
