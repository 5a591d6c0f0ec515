"""One JSON file of every `make bench` figure beside the floor it is compared with.

Each benchmark module calls `record(...)` for each figure it measures; `make bench` leaves
`bench/results.json` (ignored by git) and the README's performance table is copied from it.
A figure's floor is measured in the same run on the same machine (a health request for an
evaluate request, a plain numpy loop for the engine), so ratios mean something on a noisy machine.
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

RESULTS = Path(os.environ.get("BENCH_RESULTS", Path(__file__).resolve().parent / "results.json"))


def _load() -> dict:
    try:
        return json.loads(RESULTS.read_text())
    except (OSError, ValueError):
        return {"machine": {}, "figures": {}}


def record(
    name: str,
    value: float,
    unit: str,
    *,
    floor: float | None = None,
    floor_label: str = "",
    goal: str = "",
    note: str = "",
) -> None:
    """Store one figure. `floor` is the reference measured in the same run (same unit); the ratio
    stored is value / floor. `goal` states the target in words (e.g. "ratio <= 2")."""
    data = _load()
    data["machine"] = {"python": platform.python_version(), "cpus": os.cpu_count(), "host": platform.node()}
    data["figures"][name] = {
        "value": value,
        "unit": unit,
        "floor": floor,
        "floor_label": floor_label,
        "ratio": (value / floor) if floor else None,
        "goal": goal,
        "note": note,
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    RESULTS.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def table() -> str:
    """The figures as a Markdown table (for the README's performance section)."""
    data = _load()
    rows = ["| figure | value | floor (same run) | ratio | goal |", "| --- | --- | --- | --- | --- |"]
    for name, f in sorted(data["figures"].items()):
        floor = f"{f['floor']:.4g} {f['unit']} ({f['floor_label']})" if f["floor"] else "—"
        ratio = f"{f['ratio']:.2f}" if f["ratio"] is not None else "—"
        rows.append(f"| {name} | {f['value']:.4g} {f['unit']} | {floor} | {ratio} | {f['goal'] or '—'} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
