"""One section of the demo report: for a paper, what it claims, the
headline figure of this run beside the paper's ("ours:"), where we miss
it, the tables; and the parts not in this run, each with the sweep that
makes it. Also including a markdown file another step wrote."""
import os
import re


class Section:
    def __init__(self, short, title, claim=None):
        self.short = short     # the name in the Summary
        self.title = title
        self.claim = claim     # one sentence: what the paper claims (None: not a paper's)
        self.ours = None       # this run's headline beside the paper's
        self.misses = []       # where we miss the paper's figure, plainly
        self.body = []
        self.absent = []       # parts not in this run, with the sweep that makes them

    def missing(self, what, sweep, out):
        """A part not in this run: one line naming the sweep that makes it."""
        self.absent.append((what, sweep, out))

    def lines(self):
        out = [f"## {self.title}", ""]
        if self.claim:
            out += [f"*The paper:* {self.claim}", ""]
        if self.ours:
            out += [f"**{'ours' if self.claim else 'this run'}:** {self.ours}", ""]
        if self.misses:
            out += ["**Where we miss the paper:** " + " ".join(self.misses), ""]
        if self.absent:
            out += [f"- {what}: not in this run; `./run collx sweep {sweep} -o DIR/{sub}` makes it "
                    f"(group `demo` runs it)." for what, sweep, sub in self.absent] + [""]
        return out + self.body

    def summary(self):
        """Its line in the Summary: the headline, else what is missing."""
        if self.ours:
            return f"- **{self.short}**: {self.ours}"
        if self.absent:
            parts = {}
            for what, sweep, _ in self.absent:
                parts.setdefault(sweep, []).append(what)
            return (f"- **{self.short}**: no headline figure in this run; missing " +
                    "; ".join(f"{', '.join(whats)} (sweep `{sweep}`)" for sweep, whats in parts.items()) + ".")
        return f"- **{self.short}**: see its section."


def nest(lines, level):
    """Markdown lines with their headings moved so the first one is at
    level (e.g. a file's '# Title' under a report's '## Section' at 3);
    lines holding several (some tables' do) are split first."""
    lines = "\n".join(lines).split("\n")
    first = next((ln for ln in lines if ln.startswith("#")), None)
    if first is None:
        return list(lines)
    shift = level - (len(first) - len(first.lstrip("#")))
    out = []
    for ln in lines:
        if ln.startswith("#"):
            depth = len(ln) - len(ln.lstrip("#"))
            ln = "#" * max(1, depth + shift) + ln[depth:]
        out.append(ln)
    return out


def include(path, subdir, level, drop_title=False):
    """A markdown file of a sub-directory of the results, its headings at
    level and its relative links and images pointing into subdir; without
    its first line if drop_title and that is a heading (the section's own
    title says it)."""
    text = re.sub(r"\]\((?!https?:|/|#)", f"]({subdir}/", open(path).read())
    lines = text.rstrip("\n").split("\n")
    if drop_title and lines[0].startswith("#"):
        lines = lines[1:]
        while lines and not lines[0].strip():
            lines.pop(0)
    return nest(lines, level) + [""]


def exists(res, *parts):
    return os.path.exists(os.path.join(res, *parts))
