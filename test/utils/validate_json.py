#!/usr/bin/env python3
"""Validates JSON files against a JSON Schema (draft 2020-12).

Usage: validate_json.py SCHEMA FILE... [--skip-key KEY]

FILE may be `-` for standard input. The schema itself is checked first.
Every file that does not conform is reported with the path of the offending
value and the rule it breaks; the exit status is 1 if any file fails, 2 on
a usage error or unreadable file. `--skip-key KEY` skips files whose top-level
object has KEY (the golden corpus records expected errors that way; those
files are not `aot-run` output).

Used by the lit suite (test/tools/aot-run/schema.mlir) to keep the schemas
of docs/reference/schema/ true to what `aot-run` reads and writes.
"""

import json
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate_json.py: the Python package 'jsonschema' is missing (pip install jsonschema)")


def load(path):
    try:
        if path == "-":
            return json.load(sys.stdin)
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: cannot read JSON: {e}", file=sys.stderr)
        sys.exit(2)


def main(argv):
    skip = []
    args = []
    it = iter(argv)
    for a in it:
        if a == "--skip-key":
            skip.append(next(it, None))
        else:
            args.append(a)
    if len(args) < 2 or None in skip:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    schema = load(args[0])
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    validator = cls(schema)
    failed = checked = 0
    for path in args[1:]:
        doc = load(path)
        if isinstance(doc, dict) and any(k in doc for k in skip):
            continue
        checked += 1
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            failed += 1
            for e in errors:
                where = "/".join(str(p) for p in e.absolute_path) or "(root)"
                print(f"{path}: {where}: {e.message}", file=sys.stderr)
    print(f"validated {checked} file(s) against {args[0].split('/')[-1]}: {checked - failed} ok, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
