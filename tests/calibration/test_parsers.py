"""Parsers for obdfilter-survey and IOR (text 3.0.1, 3.3, 4.0; JSON): the project's own inputs, the
broken ones, and every sample in ../shared/samples when that folder exists."""

from pathlib import Path

import pytest

from planner.engine.benchparse import ParseError, parse_benchmark

DATA = Path(__file__).parent / "data"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "samples"


def _read(name):
    return (DATA / name).read_text()


def test_obdfilter_sweep_with_wrapped_short_error_and_old_layout():
    parsed = parse_benchmark(_read("obdfilter_sweep.txt"))
    assert parsed.kind == "obdfilter-survey"
    assert parsed.header == "Obdfilter-survey for case=disk from oss01"
    assert len(parsed.obdfilter) == 18
    first = parsed.obdfilter[0]
    assert (first.osts, first.size_kib, first.record_kib, first.objects, first.threads, first.line) == (6, 201326592, 1024, 6, 6, 2)
    assert first.results["write"]["min"] is not None and first.gbps("write") == pytest.approx(first.results["write"]["mibps"] * 2**20 / 1e9)
    wrapped = next(r for r in parsed.obdfilter if r.threads == 384)
    assert wrapped.results["write"]["mibps"] == 4021.5
    assert wrapped.results["rewrite"]["flag"] == "SHORT" and wrapped.results["rewrite"]["min"] is None
    assert wrapped.results["read"]["mibps"] is None and wrapped.results["read"]["flag"] == "ERROR"
    old = parsed.obdfilter[-1]
    assert old.record_kib == 1024 and old.threads == 3 and set(old.results) == {"write"}


@pytest.mark.parametrize(
    "name, version, kind, write, read, tasks, fpp, xfer",
    [
        ("ior_330.txt", "3.3.0", "ior-text", 8583.19, 8106.32, 64, True, 1048576),
        ("ior_301.txt", "3.0.1", "ior-text", 4100.0, 4000.0, 32, True, 1048576),
        ("ior_400.txt", "4.0.0", "ior-text", 16500.0, 15200.0, 128, True, 4194304),
        ("ior.json", "3.3.0", "ior-json", 3000.0, 3100.0, 16, True, 1048576),
    ],
)
def test_ior_versions_and_json(name, version, kind, write, read, tasks, fpp, xfer):
    parsed = parse_benchmark(_read(name))
    assert (parsed.kind, parsed.version) == (kind, version)
    by_op = {r.operation: r for r in parsed.ior}
    assert by_op["write"].max_mibps == write and by_op["read"].max_mibps == read
    assert by_op["write"].tasks == tasks and by_op["write"].file_per_process is fpp and by_op["write"].transfer_bytes == xfer
    assert by_op["write"].max_gbps == pytest.approx(write * 2**20 / 1e9)


def test_ior_command_line_is_kept():
    parsed = parse_benchmark(_read("ior_330.txt"))
    assert parsed.ior[0].command.startswith("ior -a POSIX -F -C") and parsed.ior[0].api == "POSIX" and parsed.ior[0].line == 21


@pytest.mark.parametrize(
    "name, message, line",
    [
        ("ior_broken.json", "broken JSON", 4),
        ("ior_truncated.txt", "truncated", None),
        ("not_a_benchmark.txt", "not obdfilter-survey or IOR output", 1),
    ],
)
def test_broken_inputs_are_refused_with_what_was_expected_and_where(name, message, line):
    with pytest.raises(ParseError) as exc:
        parse_benchmark(_read(name))
    assert message in str(exc.value)
    assert exc.value.line == line


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("\x00\x01binary", "binary"),
        ("Summary of all tests:\nOperation Max(MiB) Min(MiB)\nwrite 1", "columns"),
        ("ost 1 sz 1K rsz 1K obj 1 thr 1\n", "no write, rewrite or read"),
    ],
)
def test_more_broken_inputs(text, message):
    with pytest.raises(ParseError, match=message):
        parse_benchmark(text)


@pytest.mark.skipif(not SHARED.exists(), reason="../shared/samples is not beside this checkout (it is in CI)")
def test_every_shared_sample_parses_or_is_refused_cleanly():
    files = [p for p in sorted(SHARED.rglob("*")) if p.is_file() and p.suffix in (".txt", ".json")]
    assert len(files) >= 7
    for path in files:
        text = path.read_text()
        if path.name.startswith("04_hpc-ior-issue102"):  # deliberately broken JSON (see its .source file)
            with pytest.raises(ParseError, match="broken JSON"):
                parse_benchmark(text)
            continue
        parsed = parse_benchmark(text)
        assert parsed.obdfilter or parsed.ior, path.name
        if "obdfilter" in str(path):
            assert parsed.kind == "obdfilter-survey"
        else:
            assert parsed.kind == "ior-text" and all(r.max_mibps > 0 for r in parsed.ior)


def test_max_lines_are_found_anywhere_in_a_file():
    text = "job 4242 started on node17\nloading modules\n\nMax Write: 1200.50 MiB/sec (1258.82 MB/sec)\nnoise\nMax Read:  1500.00 MiB/sec (1572.86 MB/sec)\n"
    parsed = parse_benchmark(text)
    assert [(r.operation, r.max_mibps) for r in parsed.ior] == [("write", 1200.5), ("read", 1500.0)]


@pytest.mark.parametrize(
    "text, words",
    [
        ('{"summary": [{"operation": "write", "bwMaxMIB": NaN}]}', "NaN"),
        ('{"summary": [{"operation": "write", "bwMaxMIB": Infinity}]}', "Infinity"),
        ('{"summary": [{"operation": "write", "bwMaxMIB": 1e309}]}', "not a finite rate"),
        ('{"summary": [{"operation": "write", "bwMaxMIB": 5e12}]}', "not a finite rate"),
        ("Max Write: nan MiB/sec (nan MB/sec)\n", "not a finite rate"),
        ("Max Write: inf MiB/sec (inf MB/sec)\n", "not a finite rate"),
        ("ost 8 sz 67108864K rsz 1024K obj 8 thr 8 write  1e400 [ 64.00, 82.00]\n", "not a finite rate"),
    ],
)
def test_non_finite_or_huge_rates_are_refused_with_the_line(text, words):
    with pytest.raises(ParseError, match=words):
        parse_benchmark(text)


def test_ior_runs_carry_their_nodes_access_and_path():
    parsed = parse_benchmark(
        "IOR-3.3.0: MPI Coordinated Test of Parallel I/O\n"
        "Command line        : ior -a POSIX -t 1m -b 16g -F -o /lustre/scratch/fpp\n"
        "Path                : /lustre/scratch\n"
        "Options: \n"
        "api                 : POSIX\n"
        "access              : file-per-process\n"
        "nodes               : 16\n"
        "tasks               : 256\n"
        "clients per node    : 16\n"
        "Summary of all tests:\n"
        "Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)     StdDev    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt   blksiz    xsize aggs(MiB)   API RefNum\n"
        "write       8000.00    7000.00    7500.00      10.00    8000.00    7000.00    7500.00      10.00    2.00000         NA            NA     0    256  16    3   1     1        1         0    0      1 17179869184  1048576  4096.0 POSIX      0\n"
    )
    [run] = parsed.ior
    assert run.client_nodes == 16 and run.tasks == 256 and run.file_per_process and run.shared_file is False
    assert run.path == "/lustre/scratch" and run.transfer_bytes == 2**20
