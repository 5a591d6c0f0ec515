"""Reading device-type files in the community devicetype-library format (dcim.library), and mapping
them to catalogue parts without the database (dcim.catalogue_import.plan_part)."""

import io
import zipfile
from pathlib import Path

import pytest
import yaml

from dcim import library
from dcim.catalogue_import import guess_kind, plan_part

DATA = Path(__file__).parent / "data"


def read(name: str) -> library.LibraryResult:
    return library.read_files([(name, (DATA / name).read_bytes())])


def zipped(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, raw in members.items():
            zf.writestr(name, raw)
    return buf.getvalue()


def problems(data: dict, name: str = "x.yaml") -> dict[str, str]:
    return {e.key: e.problem for e in library.validate_device_type(data, name)}


MINIMAL = {"manufacturer": "Dell", "model": "PowerEdge R730xd", "slug": "dell-poweredge-r730xd", "u_height": 2, "is_full_depth": True}


def test_library_reads_the_r730xd_file():
    result = read("PowerEdge-R730xd.yaml")
    assert result.errors == []
    (dt,) = result.device_types
    assert (dt.manufacturer, dt.model, dt.slug, dt.part_number) == ("Dell", "PowerEdge R730xd", "dell-poweredge-r730xd", "R730xd")
    assert dt.u_height == 2 and dt.is_full_depth is True and dt.airflow == "front-to-rear"
    assert dt.weight_kg == 32.5
    assert [p.maximum_draw for p in dt.power_ports] == [750, 750]
    assert len(dt.interfaces) == 5 and len(dt.data_interfaces) == 4  # the iDRAC port is management only


def test_library_converts_pounds_to_kilograms():
    (dt,) = read("PowerEdge-R620.yaml").device_types
    # 43.87 lb x 0.45359237 kg/lb = 19.8991 kg
    assert dt.weight_kg == pytest.approx(19.8991, abs=1e-4)


@pytest.mark.parametrize(
    ("type_", "gbps"),
    [
        ("1000base-t", 1.0),
        ("10gbase-x-sfpp", 10.0),
        ("100base-tx", 0.1),
        ("infiniband-fdr", 56.0),
        ("infiniband-edr", 100.0),
        ("lag", None),
    ],
)
def test_library_interface_speed_from_its_type(type_, gbps):
    assert library.interface_speed_gbps(type_) == gbps


def test_library_broken_file_names_file_key_and_problem():
    result = read("broken.yaml")
    assert result.device_types == []
    by_key = {e.key: e.problem for e in result.errors}
    assert all(e.file == "broken.yaml" for e in result.errors)
    assert "unknown key" in by_key["rack_units"]
    assert "multiple of 0.5" in by_key["u_height"]
    assert "true or false" in by_key["is_full_depth"]
    assert "required when weight is given" in by_key["weight_unit"]
    assert "not a known airflow" in by_key["airflow"]
    assert "does not match" in by_key["slug"]
    assert "not a known power-port type" in by_key["power-ports[0].type"]  # c13 is an outlet, not an inlet
    assert "whole number" in by_key["power-ports[0].maximum_draw"]
    assert "not a known interface type" in by_key["interfaces[0].type"]
    assert "already the name of interfaces[0]" in by_key["interfaces[1].name"]


def test_library_required_keys_and_types():
    assert problems({**MINIMAL, "model": None})["model"] == "required key is empty"
    assert problems({k: v for k, v in MINIMAL.items() if k != "slug"})["slug"] == "required key is missing"
    assert "number of rack units" in problems({**MINIMAL, "u_height": "2"})["u_height"]
    assert "number of rack units" in problems({**MINIMAL, "u_height": True})["u_height"]
    assert problems({**MINIMAL, "u_height": 1.5}) == {}
    assert "must be a number" in problems({**MINIMAL, "weight": "heavy", "weight_unit": "kg"})["weight"]
    assert "required when weight_unit" in problems({**MINIMAL, "weight_unit": "kg"})["weight"]
    assert "not a weight unit" in problems({**MINIMAL, "weight": 3, "weight_unit": "stone"})["weight_unit"]
    assert "'parent'" in problems({**MINIMAL, "device-bays": [{"name": "bay1"}]})["subdevice_role"]
    assert "must be a list" in problems({**MINIMAL, "interfaces": {"name": "eth0"}})["interfaces"]
    assert "required key is missing" in problems({**MINIMAL, "interfaces": [{"name": "eth0"}]})["interfaces[0].type"]
    assert (
        "true or false"
        in problems({**MINIMAL, "interfaces": [{"name": "e", "type": "1000base-t", "mgmt_only": "no"}]})["interfaces[0].mgmt_only"]
    )
    assert "unknown key" in problems({**MINIMAL, "interfaces": [{"name": "e", "type": "1000base-t", "speed": 1}]})["interfaces[0].speed"]
    assert (
        "whole number"
        in problems({**MINIMAL, "power-ports": [{"name": "p", "type": "iec-60320-c14", "maximum_draw": 0}]})["power-ports[0].maximum_draw"]
    )
    assert "one mapping" in problems(["not", "a", "mapping"])[""]


def test_library_validate_accepts_every_test_file_it_reads():
    for name in ("PowerEdge-R730xd.yaml", "PowerEdge-R620.yaml", "Networking-N2048.yaml", "SX6036.yaml"):
        data = yaml.safe_load((DATA / name).read_text())
        assert library.validate_device_type(data, name) == [], name


def test_library_not_yaml_and_not_utf8():
    (err,) = read("not-yaml.yaml").errors
    assert err.file == "not-yaml.yaml" and "not valid YAML (line 3" in err.problem
    (err,) = library.read_files([("latin.yaml", "manufacturer: M\xfcller\n".encode("latin-1"))]).errors
    assert "not UTF-8" in err.problem


def test_library_refuses_aliases_and_deep_nesting():
    bomb = b'a: &a ["x","x"]\nb: &b [*a,*a]\nc: [*b,*b]\n'
    (err,) = library.read_files([("bomb.yaml", bomb)]).errors
    assert "anchors and aliases" in err.problem
    deep = b"a: " + b"[" * 40 + b"]" * 40 + b"\n"
    (err,) = library.read_files([("deep.yaml", deep)]).errors
    assert "nested more than" in err.problem


def test_library_reads_a_zip_in_memory_with_folders():
    raw = zipped(
        {
            "device-types/Dell/PowerEdge-R730xd.yaml": (DATA / "PowerEdge-R730xd.yaml").read_bytes(),
            "device-types/Mellanox/SX6036.yaml": (DATA / "SX6036.yaml").read_bytes(),
            "README.md": b"not a device type",
            "device-types/": b"",
        }
    )
    result = library.read_files([("library.zip", raw)])
    assert result.errors == []
    assert [dt.file for dt in result.device_types] == ["device-types/Dell/PowerEdge-R730xd.yaml", "device-types/Mellanox/SX6036.yaml"]


def test_library_zip_limits(monkeypatch):
    (err,) = library.read_files([("junk.zip", b"PK not really")]).errors
    assert err.file == "junk.zip" and "not a readable zip" in err.problem
    monkeypatch.setattr(library, "MAX_ZIP_MEMBERS", 2)
    (err,) = library.read_files([("many.zip", zipped({f"{i}.yaml": b"a: 1" for i in range(3)}))]).errors
    assert "3 entries; the limit is 2" in err.problem
    monkeypatch.setattr(library, "MAX_ZIP_DEPTH", 1)
    (err,) = library.read_files([("deep.zip", zipped({"a/b/c.yaml": b"a: 1"}))]).errors
    assert err.file == "deep.zip:a/b/c.yaml" and "2 folders deep" in err.problem
    (err,) = library.read_files([("evil.zip", zipped({"../x.yaml": b"a: 1"}))]).errors
    assert "without '..'" in err.problem
    (err,) = library.read_files([("empty.zip", zipped({"README": b"x"}))]).errors
    assert "holds no .yaml" in err.problem


def test_library_zip_member_larger_than_its_header_says_is_cut_at_the_limit(monkeypatch):
    monkeypatch.setattr(library, "MAX_FILE_BYTES", 100)
    (err,) = library.read_files([("big.zip", zipped({"big.yaml": b"a: " + b"x" * 500}))]).errors
    assert err.file == "big.zip:big.yaml" and "the limit is 100 bytes" in err.problem


def test_library_uncompressed_total_is_limited(monkeypatch):
    monkeypatch.setattr(library, "MAX_TOTAL_BYTES", 1000)
    members = {f"{i}.yaml": (DATA / "SX6036.yaml").read_bytes() for i in range(3)}  # 2.4 kB each
    errors = library.read_files([("big.zip", zipped(members))]).errors
    assert any("uncompresses to more than 1000 bytes" in e.problem for e in errors)


def test_library_duplicate_slugs_and_unknown_file_types():
    raw = (DATA / "SX6036.yaml").read_bytes()
    errors = library.read_files([("a.yaml", raw), ("b.yml", raw), ("c.txt", b"x")]).errors
    assert {(e.file, e.key) for e in errors} == {("b.yml", "slug"), ("c.txt", "")}


# ---------------------------------------------------------------- mapping, no database


def test_plan_server_takes_height_weight_and_power_with_notes():
    (dt,) = read("PowerEdge-R730xd.yaml").device_types
    part, errors = plan_part(dt)
    assert errors == [] and part.kind == "server" and not part.kind_given
    assert "4 network ports in 2U" in part.kind_reason
    assert part.values["height_u"] == 2 and part.values["weight_kg"] == 32.5 and part.values["max_power_w"] == 750.0
    assert part.notes["height_u"] == "devicetype-library PowerEdge-R730xd.yaml: u_height 2"
    assert part.notes["weight_kg"].startswith("devicetype-library PowerEdge-R730xd.yaml: weight 32.5 kg")
    assert "largest taken as the supply rating" in part.notes["max_power_w"]
    assert part.missing == ["pcie_slots", "internal_bays", "power_w"]


def test_plan_allocated_draw_is_not_typical_power():
    (dt,) = read("PowerEdge-R620.yaml").device_types
    part, _ = plan_part(dt)
    assert "power_w" in part.missing and "power_w" not in part.values
    assert any("allocated_draw 300, 300 W not taken" in r for r in part.remarks)
    assert part.notes["weight_kg"].endswith(
        "weight 43.87 lb = 19.899 kg (the device as the file describes it; whether drives are included is not stated)"
    )


def test_plan_switches_port_count_and_speed_from_interface_types():
    (sx,) = read("SX6036.yaml").device_types
    part, _ = plan_part(sx)
    assert part.kind == "switch" and "36 network ports" in part.kind_reason
    assert (part.values["kind"], part.values["ports"], part.values["port_gbps"]) == ("infiniband", 36, 56.0)
    assert part.missing == ["weight_kg", "power_w"]
    (n2048,) = read("Networking-N2048.yaml").device_types
    part, _ = plan_part(n2048)
    assert (part.values["kind"], part.values["ports"], part.values["port_gbps"]) == ("ethernet", 48, 1.0)
    assert "2 other ports at other speeds not counted" in part.notes["ports"]


def test_plan_kind_given_and_enclosure_figures_missing():
    (dt,) = read("PowerEdge-R730xd.yaml").device_types
    part, _ = plan_part(dt, "raid-head")
    assert part.kind_given and part.kind_reason == "given"
    assert {"drive_slots", "controllers", "controller_read_mbps", "uplink_ports", "power_w"} <= set(part.missing)
    assert "max_power_w" not in part.values and any("maximum_draw 750 W noted but not stored" in r for r in part.remarks)


def test_guess_kind_enclosure_without_network_ports():
    dt = library._device_type(
        {**MINIMAL, "u_height": 4, "interfaces": [{"name": "mgmt", "type": "1000base-t", "mgmt_only": True}]}, "e.yaml"
    )
    kind, reason = guess_kind(dt)
    assert kind == "jbod" and "no network port but management" in reason


def test_plan_half_unit_rounded_up_and_zero_u_refused():
    dt = library._device_type({**MINIMAL, "u_height": 1.5}, "h.yaml")
    part, errors = plan_part(dt, "server")
    assert errors == [] and part.values["height_u"] == 2 and "u_height 1.5, counted as 2U" in part.notes["height_u"]
    dt = library._device_type({**MINIMAL, "u_height": 0}, "z.yaml")
    _, errors = plan_part(dt, "server")
    assert [(e.file, e.key) for e in errors] == [("z.yaml", "u_height")]


def test_library_corrupt_zip_member_is_an_error_not_a_crash():
    raw = bytearray(zipped({"a.yaml": (DATA / "SX6036.yaml").read_bytes()}))
    start = raw.index(b"a.yaml") + len(b"a.yaml")  # the local header's name, then the deflated data
    raw[start + 10 : start + 60] = b"\xff" * 50
    errors = library.read_files([("bad.zip", bytes(raw))]).errors
    assert errors and errors[0].file.startswith("bad.zip") and "cannot be read from the zip" in errors[0].problem


def test_plan_refuses_a_height_no_rack_holds():
    dt = library._device_type({**MINIMAL, "u_height": 2000}, "tall.yaml")
    _, errors = plan_part(dt, "switch")
    assert [(e.file, e.key) for e in errors] == [("tall.yaml", "u_height")] and "taller than any rack" in errors[0].problem
