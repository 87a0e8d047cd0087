"""A ratchet list: today's violations with their sizes, one a line, which may shrink and leave the list, never grow.

Used by scripts/check-shape (files and functions over their length limits, sized in lines) and scripts/clang-tidy
(findings of a check in a file, sized in findings). A line is `FIELD... SIZE`; `#` starts a comment.
"""
import sys
from pathlib import Path


def read(path: Path, fields: int):
    """Maps each line's first `fields` fields (a tuple) to its size; exits with the line that does not parse."""
    listed = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != fields + 1 or not parts[-1].isdigit():
            sys.exit(f"{path}:{number}: expected {fields} fields and a size, got '{line}'")
        listed[tuple(parts[:-1])] = int(parts[-1])
    return listed


def write(path: Path, listed):
    """Rewrites the list with `listed`'s entries, sorted, under the file's header comment."""
    header = [line for line in path.read_text().splitlines() if line.startswith("#")]
    rows = [" ".join(key) + f" {size}" for key, size in sorted(listed.items())]
    path.write_text("\n".join(header + rows) + "\n")


def compare(measured, listed, unit, update_command):
    """Returns (errors, notes): errors for what is measured but not listed, grew, or no longer violates; notes for
    what shrank. `measured` and `listed` map keys (tuples) to sizes."""
    errors, notes = [], []
    for key, size in sorted(measured.items()):
        name = " ".join(key)
        if key not in listed:
            errors.append(f"new: {name}: {size} {unit}, not in the list")
        elif size > listed[key]:
            errors.append(f"grew: {name}: {size} {unit}, listed at {listed[key]}")
        elif size < listed[key]:
            notes.append(f"shrank: {name}: {size} {unit}, listed at {listed[key]} (lower it: {update_command})")
    for key in sorted(set(listed) - set(measured)):
        errors.append(f"fixed: {' '.join(key)}: remove its entry from the list ({update_command})")
    return errors, notes


def tightened(measured, listed):
    """The list with every size lowered to the measured one and the entries that no longer violate removed."""
    return {key: min(size, measured[key]) for key, size in listed.items() if key in measured}
