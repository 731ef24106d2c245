"""Runs one command so that one bad point cannot take the machine down: a
wall-clock timeout and a memory limit on the resident memory of its whole
process group (SMPI runs every rank in one process; an algorithm that needs
more memory than the limit is killed, said and skipped). Also measures the
host time it cost: the CPU seconds (user + system) of the command and all
its descendants."""
import os
import resource
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


def group_rss(pgid):
    """Resident bytes of every process in process group pgid."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue   # gone meanwhile
        # after "pid (comm)": state ppid pgrp ... rss is field 24 (index 21 here)
        if int(fields[2]) == pgid:
            total += int(fields[21]) * PAGE
    return total


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Outcome:
    """rc (None: killed), why it was killed ('' if not), host CPU seconds,
    wall seconds, peak resident bytes seen."""

    def __init__(self, rc, killed, cpu, wall, peak, stderr):
        self.rc, self.killed, self.cpu, self.wall = rc, killed, cpu, wall
        self.peak, self.stderr = peak, stderr

    @property
    def ok(self):
        return self.rc == 0 and not self.killed

    def why(self):
        if self.killed:
            return self.killed
        if self.rc:
            tail = " | ".join(self.stderr.strip().splitlines()[-3:])
            return f"exit {self.rc}" + (f": {tail}" if tail else "")
        return ""


def run(argv, env=None, timeout=300.0, mem_limit=None, cwd=None, stdout_path=os.devnull):
    """Runs argv in its own process group under the limits; returns an
    Outcome. stderr is kept (its end explains failures)."""
    mem_limit = mem_limit or default_mem_limit()
    cpu0, t0, peak, killed = children_cpu(), time.time(), 0, ""
    with open(stdout_path, "w") as out, open(os.devnull) as nul, \
            tempfile.TemporaryFile("w+b") as err:
        p = subprocess.Popen(argv, env={**os.environ, **(env or {})}, cwd=cwd, stdin=nul,
                             stdout=out, stderr=err, start_new_session=True)
        while p.poll() is None:
            time.sleep(POLL)
            rss = group_rss(p.pid)
            peak = max(peak, rss)
            if rss > mem_limit:
                killed = f"memory: {rss / 2**30:.1f} GiB resident > limit " \
                         f"{mem_limit / 2**30:.1f} GiB"
            elif time.time() - t0 > timeout:
                killed = f"timeout: more than {timeout:.0f} s"
            if killed:
                kill_group(p)
                break
        p.wait()
        err.seek(max(0, err.seek(0, os.SEEK_END) - 4096))
        stderr = err.read().decode(errors="replace")
    return Outcome(p.returncode, killed, children_cpu() - cpu0, time.time() - t0, peak,
                   stderr)


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
