"""Parsers for what benchmark tools print: obdfilter-survey summaries, IOR text (3.0.x to 4.x) and
IOR JSON. Pure Python. Rates are converted from MiB/s to GB/s (10^9 B/s).

A file that is none of these, is truncated, or is broken JSON raises `ParseError` saying what was
expected and which line was wrong.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field

from .units import mibps_to_gbps


class ParseError(ValueError):
    """The text is not benchmark output the planner can read; the message says why and where."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


@dataclass
class ObdfilterRow:
    """One obdfilter-survey case: OSTs, size and record size (KiB), objects and threads, and per
    operation the aggregate MiB/s (None for SHORT/ERROR) with the per-OST [min, max]."""

    line: int
    osts: int
    size_kib: int
    record_kib: int
    objects: int
    threads: int
    results: dict = field(default_factory=dict)  # op -> {"mibps": float|None, "min": float|None, "max": float|None, "flag": str|None}

    def gbps(self, op: str) -> float | None:
        value = (self.results.get(op) or {}).get("mibps")
        return None if value is None else mibps_to_gbps(value)


@dataclass
class IorResult:
    """One IOR operation result: the maximum (and mean) MiB/s with the run's parameters."""

    operation: str
    max_mibps: float
    mean_mibps: float | None
    tasks: int | None
    tasks_per_node: int | None
    file_per_process: bool | None
    block_bytes: int | None
    transfer_bytes: int | None
    api: str | None
    version: str | None
    command: str | None
    line: int | None
    nodes: int | None = None
    path: str | None = None
    shared_file: bool | None = None
    """True for a single shared file (IOR's `access : single-shared-file`), False for file per process."""

    @property
    def max_gbps(self) -> float:
        return mibps_to_gbps(self.max_mibps)

    @property
    def client_nodes(self) -> int | None:
        """Client nodes of the run: as IOR printed them, else tasks / tasks per node."""
        if self.nodes:
            return self.nodes
        if self.tasks and self.tasks_per_node:
            return max(self.tasks // self.tasks_per_node, 1)
        return None


@dataclass
class ParsedBenchmark:
    kind: str  # "obdfilter-survey", "ior-text", "ior-json"
    version: str | None = None
    header: str | None = None
    obdfilter: list[ObdfilterRow] = field(default_factory=list)
    ior: list[IorResult] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "version": self.version,
            "header": self.header,
            "obdfilter": [asdict(r) for r in self.obdfilter],
            "ior": [asdict(r) for r in self.ior],
        }


# ------------------------------------------------------------------ obdfilter-survey

_OBD_CASE = re.compile(r"\bost\s+(\d+)\s+sz\s+(\d+)K?\s+rsz\s+(\d+)K?\s+obj\s+(\d+)\s+thr\s+(\d+)", re.I)
_OBD_OP = re.compile(
    r"\b(write|rewrite|read)\s+(?:(?P<v>[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|nan|inf(?:inity)?)|(?P<bad1>SHORT|ERROR|-+))\s*"
    r"(?:\[\s*(?P<lo>\d+(?:\.\d+)?)\s*,\s*(?P<hi>\d+(?:\.\d+)?)\s*\]|(?P<bad2>SHORT|ERROR))?",
    re.I,
)
_OBD_HEADER = re.compile(r"Obdfilter-survey\s+for\s+case=(\S+)\s+from\s+(\S+)", re.I)


def parse_obdfilter(text: str) -> ParsedBenchmark:
    """Rows of `ost N sz ...K rsz ...K obj N thr N` followed by write/rewrite/read MiB/s with per-OST
    [min, max] or SHORT/ERROR; a case may be wrapped over several lines; several cases per file."""
    header = None
    m = _OBD_HEADER.search(text)
    if m:
        header = m.group(0)
    starts = [(mm.start(), mm) for mm in _OBD_CASE.finditer(text)]
    if not starts:
        raise ParseError(
            "no obdfilter-survey case found: expected lines like "
            "'ost 8 sz 67108864K rsz 1024K obj 8 thr 8 write 613.54 [ 64.00, 82.00] ...'"
        )
    rows = []
    for i, (pos, mm) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        chunk = text[mm.end() : end]
        line = text.count("\n", 0, pos) + 1
        osts, size, rsz, obj, thr = (int(g) for g in mm.groups())
        if min(osts, obj, thr) <= 0:
            raise ParseError("ost, obj and thr must be positive", line)
        row = ObdfilterRow(line=line, osts=osts, size_kib=size, record_kib=rsz, objects=obj, threads=thr)
        for om in _OBD_OP.finditer(chunk):
            op = om.group(1).lower()
            flag = om.group("bad1") or om.group("bad2") or None
            value = _rate(om.group("v"), f"the {op} rate", line) if om.group("v") else None
            row.results[op] = {
                "mibps": value,
                "min": float(om.group("lo")) if om.group("lo") else None,
                "max": float(om.group("hi")) if om.group("hi") else None,
                "flag": flag.upper() if flag and not flag.startswith("-") else flag,
            }
        if not row.results:
            raise ParseError("a case has no write, rewrite or read result (truncated?)", line)
        rows.append(row)
    return ParsedBenchmark(kind="obdfilter-survey", header=header, obdfilter=rows)


# ------------------------------------------------------------------ IOR text

_IOR_BANNER = re.compile(r"IOR-(\S+?):\s+MPI Coordinated Test")
_IOR_CMD = re.compile(r"^\s*Command line(?: used)?\s*:\s*(.+)$")
_MAX_LINE = re.compile(r"^\s*Max (Write|Read):\s+(\S+)\s+MiB/sec", re.I | re.M)
_OPTION = re.compile(r"^\s*(Path|FS|access|nodes|tasks|clients per node|clients|api)\s*[:=]\s*(.+?)\s*$", re.I)
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([kKmMgGtT]?)(i?[bB])?$")


def _size_bytes(text: str | None) -> int | None:
    """IOR sizes: '1m', '64MiB', '20 MiB', '1048576' (binary multiples, as IOR uses them)."""
    if not text:
        return None
    m = _SIZE.match(text.replace(" ", ""))
    if not m:
        return None
    mult = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}[m.group(2).lower()]
    return int(float(m.group(1)) * mult)


def _command_options(command: str) -> dict:
    tokens = command.split()
    opts = {"file_per_process": "-F" in tokens, "api": None, "transfer": None, "block": None}
    for i, tok in enumerate(tokens[:-1]):
        if tok == "-a":
            opts["api"] = tokens[i + 1]
        elif tok == "-t":
            opts["transfer"] = _size_bytes(tokens[i + 1])
        elif tok == "-b":
            opts["block"] = _size_bytes(tokens[i + 1])
    return opts


MAX_MIBPS = 1e9
"""1 PiB/s: a rate above it is not a measurement (IOR and obdfilter-survey print MiB/s)."""


def _int(text: str | None) -> int | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return int(value) if math.isfinite(value) else None


def _float(text: str | None) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _rate(text, what: str, line: int | None) -> float:
    """A MiB/s figure: a finite, non-negative number under 1 PiB/s, else ParseError naming the line."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ParseError(f"{what} is '{str(text)[:20]}', not a number", line) from None
    if not math.isfinite(value) or value < 0 or value > MAX_MIBPS:
        raise ParseError(f"{what} is '{str(text)[:20]}': not a finite rate between 0 and {MAX_MIBPS:.0e} MiB/s", line)
    return value


def parse_ior_text(text: str) -> ParsedBenchmark:
    """IOR text output of 3.0.x, 3.2, 3.3 and 4.x, with unrelated lines around it: the
    'Summary of all tests' tables (columns found from their header), else the 'Max Write/Read' lines."""
    lines = text.splitlines()
    version, command, results = None, None, []
    max_lines: list[IorResult] = []
    saw_banner = saw_summary = False
    context: dict = {}  # the current test's options: path, access, nodes, tasks (they precede its results)
    i = 0
    while i < len(lines):
        line = lines[i]
        if m := _IOR_BANNER.search(line):
            version, saw_banner = m.group(1), True
        elif m := _IOR_CMD.match(line):
            command = m.group(1).strip()
            context = {}
        elif m := _OPTION.match(line):
            key, value = m.group(1).lower(), m.group(2)
            if key == "path":
                context["path"] = value
            elif key == "access":
                context["shared_file"] = "shared" in value.lower()
            elif key == "nodes":
                context["nodes"] = _int(value.split()[0])
            elif key == "clients":  # IOR 3.0: "clients = 2 (1 per node)"
                context.setdefault("tasks", _int(value.split()[0]))
                per = re.search(r"\((\d+) per node\)", value)
                if per and context.get("tasks"):
                    context.setdefault("nodes", max(context["tasks"] // int(per.group(1)), 1))
            elif key == "tasks":
                context["tasks"] = _int(value.split()[0])
        elif m := _MAX_LINE.match(line):
            opts = _command_options(command or "")
            max_lines.append(
                IorResult(
                    operation=m.group(1).lower(),
                    max_mibps=_rate(m.group(2), f"Max {m.group(1)}", i + 1),
                    mean_mibps=None,
                    tasks=context.get("tasks"),
                    tasks_per_node=None,
                    file_per_process=opts["file_per_process"] or context.get("shared_file") is False,
                    block_bytes=opts["block"],
                    transfer_bytes=opts["transfer"],
                    api=opts["api"],
                    version=version,
                    command=command,
                    line=i + 1,
                    nodes=context.get("nodes"),
                    path=context.get("path"),
                    shared_file=context.get("shared_file"),
                )
            )
        elif line.strip().startswith("Summary of all tests"):
            saw_summary = True
            if i + 1 >= len(lines) or not lines[i + 1].split()[:1] == ["Operation"]:
                raise ParseError(
                    "expected the summary table's header ('Operation Max(MiB) Min(MiB) ...') after 'Summary of all tests:'", i + 2
                )
            header = lines[i + 1].split()
            col = {name: k for k, name in enumerate(header)}
            if "Max(MiB)" not in col:
                raise ParseError("the summary table has no Max(MiB) column", i + 2)
            j = i + 2
            rows = 0
            while j < len(lines) and lines[j].split()[:1] and lines[j].split()[0].lower() in ("write", "read"):
                cells = lines[j].split()
                if len(cells) < len(header):
                    raise ParseError(f"summary row has {len(cells)} columns, the header {len(header)} (truncated?)", j + 1)

                def get(name, cells=cells, col=col):
                    return cells[col[name]] if name in col else None

                opts = _command_options(command or "")
                fpp = get("fPP")
                results.append(
                    IorResult(
                        operation=cells[0].lower(),
                        max_mibps=_rate(get("Max(MiB)"), "Max(MiB)", j + 1),
                        mean_mibps=_float(get("Mean(MiB)")),
                        tasks=_int(get("#Tasks")),
                        tasks_per_node=_int(get("tPN")),
                        file_per_process=(fpp == "1") if fpp is not None else opts["file_per_process"],
                        block_bytes=_int(get("blksiz")) or opts["block"],
                        transfer_bytes=_int(get("xsize")) or opts["transfer"],
                        api=get("API") or opts["api"],
                        version=version,
                        command=command,
                        line=j + 1,
                        nodes=context.get("nodes"),
                        path=context.get("path"),
                        shared_file=(fpp == "0") if fpp is not None else context.get("shared_file"),
                    )
                )
                rows += 1
                j += 1
            if rows == 0:
                raise ParseError("the summary table has no write or read row (truncated?)", i + 3)
            i = j
            continue
        i += 1
    if results:
        return ParsedBenchmark(kind="ior-text", version=version, ior=results)
    if max_lines:
        return ParsedBenchmark(kind="ior-text", version=version, ior=max_lines)
    if saw_banner or command:
        raise ParseError(
            f"IOR output ends before any result ('Max Write:' or 'Summary of all tests:'): truncated? (last line {len(lines)})"
        )
    if not saw_summary:
        raise ParseError("no IOR output found: expected an 'IOR-x.y: MPI Coordinated Test' banner with a 'Summary of all tests:' table")
    raise ParseError("no IOR results found")


# ------------------------------------------------------------------ IOR JSON


def parse_ior_json(text: str) -> ParsedBenchmark:
    """IOR's JSON summary (-O summaryFormat=JSON). A banner line before the object is allowed."""
    start = text.find("{")
    if start < 0:
        raise ParseError("no JSON object found: expected IOR's JSON summary starting with '{'")
    offset_lines = text.count("\n", 0, start)

    def _refuse_constant(name):
        raise ParseError(f"the JSON holds {name}, which is not a measurement (IOR prints finite numbers)")

    try:
        data = json.loads(text[start:], parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise ParseError(
            f"broken JSON ({exc.msg}, column {exc.colno}): IOR's JSON summary must be one valid JSON object", exc.lineno + offset_lines
        ) from None
    except RecursionError:
        raise ParseError("broken JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise ParseError("expected a JSON object with 'tests' and 'summary'")
    version = data.get("Version")
    command = data.get("Command line")
    results = []
    for entry in data.get("summary") or []:
        if not isinstance(entry, dict) or "operation" not in entry:
            continue
        if "bwMaxMIB" not in entry:
            raise ParseError(f"summary entry for '{entry.get('operation')}' has no bwMaxMIB")
        results.append(
            IorResult(
                operation=str(entry["operation"]).lower(),
                max_mibps=_rate(entry["bwMaxMIB"], f"bwMaxMIB of '{str(entry['operation'])[:20]}'", None),
                mean_mibps=_float(entry.get("bwMeanMIB")),
                tasks=_int(entry.get("numTasks")),
                tasks_per_node=_int(entry.get("tasksPerNode")),
                file_per_process=bool(entry.get("filePerProc")) if "filePerProc" in entry else None,
                block_bytes=_int(entry.get("blockSize")),
                transfer_bytes=_int(entry.get("transferSize")),
                api=entry.get("API"),
                version=version,
                command=command,
                line=None,
                nodes=_int(entry.get("numNodes")) if "numNodes" in entry else None,
                path=None,
                shared_file=(not entry["filePerProc"]) if "filePerProc" in entry else None,
            )
        )
    if not results:
        raise ParseError("the JSON has no 'summary' entries with an operation and bwMaxMIB")
    return ParsedBenchmark(kind="ior-json", version=version, ior=results)


# ------------------------------------------------------------------ detection


def parse_benchmark(text: str) -> ParsedBenchmark:
    """Detect the format and parse it; ParseError says what was expected when it is none of them."""
    if not text or not text.strip():
        raise ParseError("the file is empty")
    if "\x00" in text:
        raise ParseError("the file is binary, not the text a benchmark prints")
    if _OBD_CASE.search(text) or _OBD_HEADER.search(text):
        return parse_obdfilter(text)
    stripped = [ln for ln in text.splitlines() if ln.strip()]
    first_json = next((k for k, ln in enumerate(stripped) if ln.lstrip().startswith(("{", "["))), None)
    if first_json is not None and first_json <= 1:
        return parse_ior_json(text)
    if _IOR_BANNER.search(text) or "Summary of all tests" in text or _MAX_LINE.search(text) or "Command line" in text:
        return parse_ior_text(text)
    first = stripped[0][:80]
    raise ParseError(
        "not obdfilter-survey or IOR output: expected obdfilter-survey lines like 'ost 8 sz 67108864K rsz 1024K obj 8 thr 8 write ...', "
        f"IOR text with 'Summary of all tests:', or IOR JSON; the first line is '{first}'",
        1,
    )
