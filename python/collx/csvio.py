"""CSV in and out, once for every family: collbench's tidy rows
(bench/README.md, "CSV / JSON schema") and the transcribed published tables
(python/collx/published/, '#' lines are comments)."""
import csv


def read_rows(path):
    """Every row of a CSV with a header, as dicts."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_commented(path):
    """Rows of a CSV whose lines starting with '#' are comments."""
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def time_rows(rows, metric=None):
    """collbench's measurements (kind time), of one metric if given."""
    return [r for r in rows if r.get("kind") == "time" and
            (metric is None or r.get("metric") == metric)]


def write_rows(path, header, rows):
    """A CSV with header; rows are dicts (missing fields empty)."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator="\n",
                           extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
