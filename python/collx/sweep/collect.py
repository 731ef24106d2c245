"""Where a sweep's CSVs end up.

Each run writes its own part file ({part}). A cell is the runs that share
a "csv" file: when all of them are done, their parts become that file
(header once), through "rows" if the sweep has it:

  rows   {"where": {column: value}, "columns": {name: source}}: keep the
         rows whose columns have those values; write the named columns,
         source = a column of the run's CSV, "$var" = one of the run's
         variables, "*" = every column of the run's CSV (a name given
         after "*" replaces that column in place)
  header the columns of a program that writes CSV rows without a header

"merge" gathers cells into one file, per entry:
  {"file": F}                every cell of this invocation, header once
  {"file": F, "glob": [G]}   every file matching the patterns, in order
  {"file": F, "key": [C]}    F keeps its rows but those whose columns C
                             match a new row's; with "resume", a run whose
                             key ("$var" columns) is in F is not run again
"""
import csv
import glob
import os

from collx.csvio import write_rows


def read_part(path, header=None):
    """(columns, rows) of a part file; nothing if missing or empty."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None, []
    with open(path, newline="") as f:
        reader = csv.DictReader(f, fieldnames=header)
        rows = list(reader)
        return list(reader.fieldnames or []), rows


def shape(fields, rows, spec, vars_):
    """Rows through a "rows" spec (see the module's doc)."""
    if not spec:
        return fields, rows
    where = spec.get("where", {})
    columns = spec.get("columns", {"*": "*"})
    out_fields, out = [], []
    for name, src in columns.items():
        if name == "*":
            out_fields += [f for f in fields if f not in out_fields]
        elif name not in out_fields:
            out_fields.append(name)
    for r in rows:
        if any(r.get(k) != str(v) for k, v in where.items()):
            continue
        o = {}
        for name, src in columns.items():
            if name == "*":
                o.update(r)
            elif src.startswith("$"):
                o[name] = vars_.text(src[1:])
            else:
                o[name] = r[src]
        out.append(o)
    return out_fields, out


def concat_files(target, paths):
    """Files with one header each into target, header once (bytes as they
    are). False if there was nothing to gather."""
    paths = [p for p in paths if os.path.exists(p) and os.path.getsize(p) > 0]
    if not paths:
        return False
    tmp = target + ".tmp"
    with open(tmp, "w") as out:
        for i, p in enumerate(paths):
            with open(p) as f:
                head = f.readline()
                if i == 0:
                    out.write(head)
                out.write(f.read())
    os.replace(tmp, target)
    return True


def write_cell(path, parts, rows_spec, header, vars_):
    """The cell file from its parts; returns (columns, rows) written."""
    parts = [p for p in parts if os.path.exists(p) and os.path.getsize(p) > 0]
    if not parts:
        return None, []
    if not rows_spec and not header:
        if len(parts) == 1:
            os.replace(parts[0], path)
        else:
            concat_files(path, parts)
        fields, rows = read_part(path)
    else:
        fields, rows = None, []
        for p in parts:
            f, r = read_part(p, header)
            fields = fields or f
            rows += r
        fields, rows = shape(fields, rows, rows_spec, vars_)
        write_rows(path + ".tmp", fields, rows)
        os.replace(path + ".tmp", path)
    for p in parts:
        if p != path and os.path.exists(p):
            os.remove(p)
    return fields, rows


def key_of_run(rows_spec, key, vars_):
    """A run's key in an updated file, from the "$var" columns; None if a
    key column does not come from the run's variables."""
    columns = (rows_spec or {}).get("columns", {})
    vals = []
    for k in key:
        src = columns.get(k, "")
        if not src.startswith("$"):
            return None
        vals.append(vars_.text(src[1:]))
    return tuple(vals)


def keys_in(path, key):
    if not os.path.exists(path):
        return set()
    _, rows = read_part(path)
    return {tuple(r.get(k, "") for k in key) for r in rows}


def update(path, key, fields, rows):
    """path's rows, those with the keys of the new rows replaced by them."""
    old_fields, old = read_part(path)
    new_keys = {tuple(r.get(k, "") for k in key) for r in rows}
    kept = [r for r in old if tuple(r.get(k, "") for k in key) not in new_keys]
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    write_rows(path + ".tmp", old_fields or fields, kept + rows)
    os.replace(path + ".tmp", path)


def glob_merge(path, patterns):
    files = []
    for pat in patterns:
        files += [f for f in sorted(glob.glob(pat)) if f not in files and f != path]
    return concat_files(path, files)
