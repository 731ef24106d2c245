"""A calibrated platform's files, in the form sim/run and collx predict
--platform take (NAME.xml, NAME.hostfile, NAME.cfg side by side), and the
record beside them (NAME.calibration.json: what it was fitted to, the
fit's residuals, the check's errors), which collx predict reads to say how
far the platform's predictions were found to be off.

Where the launch spanned one node, the network between nodes comes from a
base platform (sim/platforms/NAME or a path): its XML with the node's
inside (loopback) replaced and its latencies scaled to the fitted ones."""
import datetime
import json
import os
import re

from collx import tools

UNITS_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12}
UNITS_BW = {"Bps": 1.0, "kBps": 1e3, "KBps": 1e3, "MBps": 1e6, "GBps": 1e9, "TBps": 1e12,
            "bps": 1 / 8, "kbps": 1e3 / 8, "Kbps": 1e3 / 8, "Mbps": 1e6 / 8, "Gbps": 1e9 / 8,
            "Tbps": 1e12 / 8, "KiBps": 1024.0, "MiBps": 1024.0 ** 2, "GiBps": 1024.0 ** 3}
SCHEMA = "collx-calibration/1"


class BadPlatform(ValueError):
    """A platform file that cannot be read; the text says which and why."""


def parse_value(text, units):
    """Seconds or bytes per second of a SimGrid value ("0.5us", "12GBps")."""
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([A-Za-z]*)\s*", text)
    if not m or (m.group(2) and m.group(2) not in units):
        raise BadPlatform(f"cannot read the value '{text}' (units: {', '.join(units)})")
    try:
        return float(m.group(1)) * (units[m.group(2)] if m.group(2) else 1.0)
    except ValueError:
        raise BadPlatform(f"cannot read the value '{text}'") from None


def files_of(xml):
    """(xml, hostfile, cfg) paths of a platform named by its XML path or a
    name of sim/platforms (root: the checkout)."""
    base = xml[:-4] if xml.endswith(".xml") else xml
    return base + ".xml", base + ".hostfile", base + ".cfg"


class Base:
    """A base platform: its XML text, hostfile lines and the route
    between its first two nodes (latency, bandwidth) as the XML says."""

    def __init__(self, xml_path):
        xml, hostfile, _ = files_of(xml_path)
        self.name = os.path.basename(xml)[:-4]
        for f in (xml, hostfile):
            if not os.path.exists(f):
                raise BadPlatform(f"base platform: {f} missing")
        with open(xml) as f:
            self.xml = f.read()
        with open(hostfile) as f:
            self.hosts = [line.strip() for line in f if line.strip()]
        clusters = re.findall(r"<cluster\b[^>]*>", self.xml)
        if not clusters:
            raise BadPlatform(f"{xml}: no <cluster> (calibrate takes platforms made of "
                              "clusters, like sim/platforms' own)")
        attrs = dict(re.findall(r'(\w+)="([^"]*)"', clusters[0]))
        try:
            # nodes 0 and 1 of the first cluster: the private links up and down
            self.route = (2 * parse_value(attrs["lat"], UNITS_TIME),
                          parse_value(attrs["bw"], UNITS_BW))
        except KeyError as e:
            raise BadPlatform(f"{xml}: its first cluster has no {e.args[0]}") from None
        self.cores = int(attrs.get("core", "1"))

    def text(self, loopback, lat_scale):
        """The XML with every cluster's loopback set and every latency
        (clusters' lat, links' latency) times lat_scale."""
        def scale(m):
            return f'{m.group(1)}="{parse_value(m.group(2), UNITS_TIME) * lat_scale:.6g}s"'
        t = re.sub(r'\b(lat|latency)="([^"]*)"', scale, self.xml)
        t = re.sub(r'\bloopback_bw="[^"]*"', f'loopback_bw="{loopback[1]:.6g}Bps"', t)
        return re.sub(r'\bloopback_lat="[^"]*"', f'loopback_lat="{loopback[0]:.6g}s"', t)


def cluster_text(name, nodes, cores, node, net, about):
    """A one-switch cluster's XML: node = (lat, bw) of the loopback, net =
    (lat, bw) of a route between two nodes (two private links)."""
    return ("<?xml version='1.0'?>\n"
            '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
            f"<!-- {about} -->\n"
            '<platform version="4.1">\n'
            f'  <cluster id="{name}" prefix="{name}-" suffix="" radical="0-{nodes - 1}" '
            f'speed="1Gf" core="{cores}" bw="{net[1]:.6g}Bps" lat="{net[0] / 2:.6g}s" '
            f'sharing_policy="SPLITDUPLEX" loopback_bw="{node[1]:.6g}Bps" '
            f'loopback_lat="{node[0]:.6g}s"/>\n'
            "</platform>\n")


def cfg_text(header, options, collx):
    """NAME.cfg: comment lines, SMPI options, collx's lines."""
    lines = [f"# {h}" for h in header]
    lines += [f"--cfg={k}:{v}" for k, v in options]
    lines += [f"collx:{k}={v if isinstance(v, str) else format(v, '.6g')}" for k, v in collx]
    return "\n".join(lines) + "\n"


def write(out_dir, name, xml, hosts, cfg, record):
    """Writes NAME.xml, .hostfile, .cfg and .calibration.json into out_dir;
    returns the XML's path."""
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, name)
    with open(base + ".xml", "w") as f:
        f.write(xml)
    with open(base + ".hostfile", "w") as f:
        f.write("\n".join(hosts) + "\n")
    with open(base + ".cfg", "w") as f:
        f.write(cfg)
    write_record(base + ".xml", record)
    return base + ".xml"


def record_path(xml):
    return files_of(xml)[0][:-4] + ".calibration.json"


def write_record(xml, record):
    with open(record_path(xml), "w") as f:
        json.dump({"schema": SCHEMA, **record}, f, indent=1, sort_keys=True)
        f.write("\n")


def read_record(xml):
    """The calibration record beside a platform's XML, or None where the
    platform was not calibrated (BadPlatform where the record is broken)."""
    path = record_path(xml)
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            rec = json.load(f)
    except (OSError, ValueError) as e:
        raise BadPlatform(f"{path}: not a calibration record ({e})") from None
    if rec.get("schema") != SCHEMA:
        raise BadPlatform(f"{path}: schema {rec.get('schema')!r}, not {SCHEMA}")
    return rec


def validation(xml):
    """One line on how far a platform's predictions were found to be off:
    the check's figures from its calibration record, or that it was never
    checked (no record, or a record without a check)."""
    try:
        rec = read_record(xml)
    except BadPlatform as e:
        return f"not validated: {e}"
    name = os.path.basename(xml)
    if rec is not None and "node_from" in rec:
        return published_validation(rec)
    if rec is None:
        return (f"not validated: {name} has no calibration record, so no prediction on it "
                "has been compared with a real run (collx calibrate --check writes one)")
    chk = rec.get("check")
    if not chk:
        return (f"calibrated to {rec['measured'].get('launch')} on "
                f"{rec['measured'].get('date')}, not checked against real runs yet "
                "(collx calibrate --check-only)")
    s = chk["summary"]
    if not s.get("cases"):
        return f"checked against {chk['against']}: no case ran on both sides"
    return (f"checked against {chk['against']} on {chk['date']}: per collective call, "
            f"median |predicted/measured - 1| {100 * s['median_abs_error']:.0f} %, worst "
            f"{100 * s['worst_abs_error']:.0f} % ({s['cases']} cases); the fastest "
            f"algorithm predicted right (within 5 %) at {s.get('fastest_right', 0)} of "
            f"{s.get('fastest_cases', 0)} points")


def check_words(chk):
    s = chk["summary"]
    return (f"median |predicted/measured - 1| {100 * s['median_abs_error']:.0f} %, worst "
            f"{100 * s['worst_abs_error']:.0f} % ({s['cases']} cases), the fastest predicted "
            f"right at {s.get('fastest_right', 0)} of {s.get('fastest_cases', 0)} points")


def published_validation(rec):
    """A published platform (sim/gen_platforms.py) whose node is another
    platform's calibration and whose network is as published."""
    src = rec["node_from"]
    words = (f"one node's costs from collx calibrate on {src['against']} "
             f"({src['dir']}; checked there on {src['date']}: {check_words(src)})")
    if rec.get("check", {}).get("summary", {}).get("cases"):
        chk = rec["check"]
        words += f"; this platform checked against {chk['against']} on {chk['date']}: " + \
            check_words(chk)
    return words + ("; between nodes as published (sim/README.md), never compared with a "
                    "real network: a speed-up that involves the network is not validated")


def hostfile(hosts, nodes, slots, directory):
    """A hostfile of the first nodes of hosts ('name:slots' lines), slots
    each; its path (in directory)."""
    names = [h.partition(":")[0] for h in hosts[:nodes]]
    if len(names) < nodes:
        raise ValueError(f"the platform has {len(hosts)} nodes, {nodes} wanted")
    path = os.path.join(directory, f"{nodes}x{slots}.hostfile")
    with open(path, "w") as f:
        f.writelines(f"{n}:{slots}\n" for n in names)
    return path


def resolve_platform(name):
    """The XML path of a platform name (sim/platforms) or path."""
    if name.endswith(".xml") or os.sep in name:
        return os.path.abspath(name if name.endswith(".xml") else name + ".xml")
    root = tools.checkout()
    if not root:
        raise BadPlatform(f"platform '{name}': give its XML's path (sim/platforms is "
                               "in a collx checkout)")
    return os.path.join(root, "sim", "platforms", name + ".xml")


def today():
    return datetime.date.today().isoformat()
