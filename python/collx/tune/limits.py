"""Runs one command so that one bad point cannot take the machine down: a
time limit (wall clock, or the CPU seconds of its processes: a simulation
on a machine loaded by other jobs is slow on the wall clock, not in CPU
time) and a memory limit on the resident memory of its whole
process group (SMPI runs every rank in one process; an algorithm that needs
more memory than the limit is killed, said and skipped). Also measures the
host time it cost: the CPU seconds (user + system) of the command and all
its descendants."""
import os
import re
import resource
import shlex
import signal
import subprocess
import tempfile
import time

POLL = 0.2   # seconds between checks


def mem_total():
    """Bytes of RAM on this machine."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return 8 << 30


def default_mem_limit():
    """A third of the machine: it is shared with other jobs."""
    return mem_total() // 3


PAGE = os.sysconf("SC_PAGE_SIZE")


TICK = os.sysconf("SC_CLK_TCK")


def group_usage(pgid):
    """{pid: (resident bytes, CPU seconds)} of every process in group pgid."""
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue   # gone meanwhile
        # after "pid (comm)": state ppid pgrp ...; utime, stime at 11, 12; rss at 21
        if int(fields[2]) == pgid:
            out[int(pid)] = (int(fields[21]) * PAGE,
                             (int(fields[11]) + int(fields[12])) / TICK)
    return out


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# A run's stderr kept: its first and last KEEP_ERR bytes. A launcher's own
# message is whole in it (Open MPI's "not enough slots": 1.3 KB); before,
# only the last 4 KiB were kept and the last 3 lines said, which cut Open
# MPI's message mid-sentence ("number of available slots when deciding
# the number of processes to | launch.", issue 62).
KEEP_ERR = 32 * 1024
GIST = 240   # characters of a message's gist (Outcome.why) at most
# Lines that carry no words: Open MPI frames its messages with dashes.
RULE_LINE = re.compile(r"^\s*[-=*_#~]{4,}\s*$")
# SimGrid's informational log lines, which precede an SMPI run's own message.
SIMGRID_INFO = re.compile(r"^\[[^]]*\] \[[\w.]+/(INFO|VERBOSE|DEBUG)\]")


def paragraphs(text):
    """The paragraphs of a message (blocks of lines with words, split at
    blank and rule lines), each joined into one line."""
    out, cur = [], []
    for line in text.splitlines():
        if not line.strip() or RULE_LINE.match(line) or SIMGRID_INFO.match(line):
            if cur:
                out.append(" ".join(cur))
            cur = []
        else:
            cur.append(" ".join(line.split()))
    if cur:
        out.append(" ".join(cur))
    return out


def gist(text, limit=GIST):
    """A message's first paragraph (where launchers and collbench say what
    went wrong; what follows is advice), whole or cut at the end of a
    sentence, else of a word (then "..."): never a piece from its middle."""
    paras = paragraphs(text)
    if not paras:
        return ""
    first = paras[0]
    if len(first) <= limit:
        return first
    head = first[:limit]
    ends = [head.rfind(p) for p in (". ", "! ", "? ", ": ", "; ")]
    cut = max(ends)
    if cut > 0:
        return head[:cut + 1]
    return head.rsplit(" ", 1)[0] + " ..."


def keep_ends(f):
    """The text of file f's first and last KEEP_ERR bytes (what lies
    between left out, and said)."""
    size = f.seek(0, os.SEEK_END)
    f.seek(0)
    if size <= 2 * KEEP_ERR:
        return f.read().decode(errors="replace")
    head = f.read(KEEP_ERR).decode(errors="replace")
    f.seek(size - KEEP_ERR)
    tail = f.read().decode(errors="replace")
    return f"{head}\n[... {size - 2 * KEEP_ERR} bytes left out ...]\n{tail}"


class Outcome:
    """rc (None: killed), why it was killed ('' if not), host CPU seconds,
    wall seconds, peak resident bytes seen, stderr (its ends: keep_ends)."""

    def __init__(self, rc, killed, cpu, wall, peak, stderr, argv=()):
        self.rc, self.killed, self.cpu, self.wall = rc, killed, cpu, wall
        self.peak, self.stderr, self.argv = peak, stderr, list(argv)

    @property
    def ok(self):
        return self.rc == 0 and not self.killed

    def why(self):
        """Why it failed, in one line: killed by a limit, or its exit
        status and the gist of its message ('' if it did not fail)."""
        if self.killed:
            return self.killed
        if self.rc:
            said = gist(self.stderr)
            return f"exit {self.rc}" + (f": {said}" if said else "")
        return ""

    def message(self):
        """Its whole message (stderr as kept, surrounding blank lines off)."""
        return self.stderr.strip("\n").rstrip()

    def report(self):
        """What it ran, how it ended and its whole message, for a person:
        lines, the message's indented under "|"."""
        how = self.killed or f"exit {self.rc}"
        msg = self.message()
        return "\n".join([f"command: {shlex.join(self.argv)}" if self.argv else "",
                          f"ended: {how}" + ("; its message:" if msg else
                                             ", with no message on stderr")] +
                         [f"  | {line}".rstrip() for line in msg.splitlines()]).lstrip("\n")


WALL_CAP = 20   # with a CPU time limit, the wall clock may take this many times it


def run(argv, env=None, timeout=300.0, mem_limit=None, cwd=None, stdout_path=os.devnull,
        clock="wall", unset=()):
    """Runs argv in its own process group under the limits (timeout in
    seconds of clock: "wall", or "cpu" for its processes' CPU time, with
    WALL_CAP times that on the wall clock), in this environment with env
    added and the names unset left out; returns an Outcome. stderr is
    kept (its ends: the whole of a launcher's message)."""
    w = Watch(timeout, mem_limit or default_mem_limit(), clock)
    cpu0 = children_cpu()
    full = {k: v for k, v in {**os.environ, **(env or {})}.items() if k not in unset}
    with open(stdout_path, "w") as out, open(os.devnull) as nul, \
            tempfile.TemporaryFile("w+b") as err:
        p = subprocess.Popen(argv, env=full, cwd=cwd, stdin=nul,
                             stdout=out, stderr=err, start_new_session=True)
        try:
            w.watch(p)
        finally:   # interrupted (Ctrl-C, SIGTERM): the run must not outlive us
            if p.poll() is None:
                kill_group(p)
        p.wait()
        stderr = keep_ends(err)
    # a killed run's processes are not all waited for (their CPU time never
    # reaches RUSAGE_CHILDREN): count what was seen of them while they ran
    cpu = max(children_cpu() - cpu0, sum(w.cpu.values()))
    return Outcome(p.returncode, w.killed, cpu, time.time() - w.t0, w.peak, stderr, argv)


class Watch:
    """Polls a process group: its peak resident memory, the CPU seconds of
    each of its processes as last seen; kills it when it breaks a limit."""

    def __init__(self, timeout, mem_limit, clock):
        self.timeout, self.mem_limit, self.clock = timeout, mem_limit, clock
        self.t0, self.peak, self.cpu, self.killed = time.time(), 0, {}, ""

    def watch(self, p):
        while p.poll() is None:
            time.sleep(POLL)
            usage = group_usage(p.pid)
            self.cpu.update({pid: cpu for pid, (_, cpu) in usage.items()})
            rss = sum(r for r, _ in usage.values())
            self.peak = max(self.peak, rss)
            if rss > self.mem_limit:
                self.killed = f"memory: {rss / 2**30:.1f} GiB resident > limit " \
                              f"{self.mem_limit / 2**30:.1f} GiB"
            elif self.clock == "cpu" and sum(self.cpu.values()) > self.timeout:
                self.killed = f"timeout: more than {self.timeout:g} s of CPU time"
            elif time.time() - self.t0 > self.timeout * (WALL_CAP if self.clock == "cpu" else 1):
                self.killed = f"timeout: more than {time.time() - self.t0:.0f} s"
            if self.killed:
                kill_group(p)
                return


def kill_group(p):
    """TERM, then KILL what is left after a second."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=1.0)
            return
        except subprocess.TimeoutExpired:
            continue
