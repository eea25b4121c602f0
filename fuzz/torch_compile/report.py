"""Names of failures, shared by the torch-free parent (run.py, minimize.py)
and the workers (check.py). Standard library only."""

import re


def field_kind(field):
    """A field with its indices dropped: ``out[1].stride`` -> ``out.stride``, ``arg0.values`` -> ``arg.values``."""
    return re.sub(r"\[\d+\]|(?<=arg|ase)\d+", "", field)


def signature(result):
    """What a failure is, for the minimizer and the summary: (class, mode, kind of the first differing field)."""
    r = result.get("first")
    if not r:
        return None
    diffs = r.get("diffs") or []
    field, detail = diffs[0] if diffs else ("", "")
    # a flag's direction is part of what the failure is
    m = re.match(r"compiled (True|False|None|'raises \w+'), eager (True|False|None|'raises \w+')$", detail)
    return (r["class"], r.get("mode"), field_kind(field)) + ((m.group(1), m.group(2)) if m else ())
