"""The collbench sweeps of a results directory (DIR/smpi/sweep_*.csv of
demo-smpi, DIR/real/*.csv of demo-real), handed out to the sections by
platform: each file is rendered once, by the first section that asks for
its platform; the rest go to 'Other SMPI sweeps'."""
import glob
import os

from collx.csvio import read_rows
from collx.tables import sweep as sweep_tables


class Sweeps:
    def __init__(self, res, pattern="smpi/sweep_*.csv"):
        self.res = res
        self.files = []   # (path, rows), not yet rendered
        for path in sorted(glob.glob(os.path.join(res, pattern))):
            rows = read_rows(path)
            if rows:
                self.files.append((path, rows))

    def take(self, platforms=None):
        """The files on these platforms (all if None), removed from the rest."""
        mine = [(p, r) for p, r in self.files if platforms is None or r[0]["platform"] in platforms]
        self.files = [f for f in self.files if f not in mine]
        return mine

    def render(self, section, platforms, heading, real=False):
        """Appends '### heading' and each file's table (and figure) to the
        section's body; returns the lines naming the fastest, or [] when
        there was no file."""
        files = self.take(platforms)
        if not files:
            return []
        section.body += [f"### {heading}", ""]
        lines = []
        for path, rows in files:
            base = os.path.splitext(os.path.basename(path))[0]
            title = base.replace("sweep_", "").replace("_", " ")
            if real:
                line = sweep_tables.table(rows, f"{title} (real MPI)", section.body, self.res,
                                          "real_" + base, "r", "median_us", level=4)
            else:
                delayed = float(rows[0]["max_delay_ms"] or 0)
                line = sweep_tables.table(rows, title + " (SMPI)", section.body, self.res, base,
                                          "r" if delayed else "t", "mean_us" if delayed else "min_us", level=4)
            if line:
                section.body += [f"- {line}", ""]
                lines.append(line)
        return lines
