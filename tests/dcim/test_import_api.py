"""POST /api/v1/dcim/imports/: device-type files into the catalogue, and what an incomplete part does to
designs, templates and the catalogue API until its figures are entered."""

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile

from hardware_catalog import models as cat

DATA = Path(__file__).parent / "data"
URL = "/api/v1/dcim/imports/"
pytestmark = pytest.mark.django_db


def upload(name: str, raw: bytes | None = None, content_type: str = "application/x-yaml") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, raw if raw is not None else (DATA / name).read_bytes(), content_type=content_type)


@pytest.fixture
def staff(api):
    user = User.objects.create_user("ops", password="x", is_staff=True)
    api.force_authenticate(user)
    return api


def post(client, *files, **fields):
    return client.post(URL, {"files": list(files), **fields}, format="multipart")


def r730xd_imported(staff) -> cat.Server:
    response = post(staff, upload("PowerEdge-R730xd.yaml"), kind="server")
    assert response.status_code == 200, response.json()
    return cat.Server.objects.get(slug="dell-poweredge-r730xd")


def test_import_r730xd_gives_an_incomplete_server_with_height_weight_and_power(staff):
    response = post(staff, upload("PowerEdge-R730xd.yaml"))
    assert response.status_code == 200, response.json()
    (part,) = response.json()["parts"]
    assert (part["slug"], part["kind"], part["kind_given"], part["catalogue"], part["action"]) == (
        "dell-poweredge-r730xd",
        "server",
        False,
        "servers",
        "created",
    )
    assert part["missing_figures"] == ["pcie_slots", "internal_bays", "power_w"]
    server = cat.Server.objects.get(slug="dell-poweredge-r730xd")
    assert (server.height_u, server.weight_kg, server.max_power_w) == (2, 32.5, 750.0)
    assert (server.vendor, server.name) == ("Dell", "Dell PowerEdge R730xd")
    assert server.sources["height_u"] == "devicetype-library PowerEdge-R730xd.yaml: u_height 2"
    assert server.sources["weight_kg"].startswith("devicetype-library PowerEdge-R730xd.yaml: weight 32.5 kg")
    assert server.missing_figures == ["pcie_slots", "internal_bays", "power_w"] and server.incomplete
    shown = staff.get("/api/v1/catalogue/servers/dell-poweredge-r730xd/").json()
    assert shown["incomplete"] is True and shown["missing_figures"] == ["pcie_slots", "internal_bays", "power_w"]


def test_import_broken_file_is_a_400_naming_file_and_key_and_writes_nothing(staff):
    response = post(staff, upload("PowerEdge-R730xd.yaml"), upload("broken.yaml"))
    assert response.status_code == 400
    body = response.json()
    assert "broken.yaml: weight_unit: required when weight is given (kg, g, lb or oz)" in body["files"]
    assert {"file": "broken.yaml", "key": "u_height", "problem": "must be a multiple of 0.5, not 1.3"} in body["errors"]
    assert not cat.Server.objects.filter(slug="dell-poweredge-r730xd").exists()  # all or nothing
    response = post(staff, upload("missing-model.yaml"))
    assert response.status_code == 400 and response.json()["errors"] == [
        {"file": "missing-model.yaml", "key": "model", "problem": "required key is missing"}
    ]


def test_import_dry_run_previews_and_writes_nothing(staff):
    response = post(staff, upload("SX6036.yaml"), upload("Networking-N2048.yaml"), dry_run="true")
    assert response.status_code == 200
    body = response.json()
    assert body["dry_run"] is True
    sx, n2048 = body["parts"]
    assert (sx["kind"], sx["action"]) == ("switch", "created")
    assert {f["figure"]: f["value"] for f in sx["figures"]}["ports"] == 36
    assert {f["figure"]: f["value"] for f in n2048["figures"]}["port_gbps"] == 1.0
    assert not cat.Switch.objects.filter(slug__in=["mellanox-sx6036", "dell-networking-n2048"]).exists()


def test_import_kinds_per_file_and_a_zip(staff):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("device-types/Dell/PowerEdge-R620.yaml", (DATA / "PowerEdge-R620.yaml").read_bytes())
        zf.writestr("device-types/Mellanox/SX6036.yaml", (DATA / "SX6036.yaml").read_bytes())
    kinds = json.dumps({"device-types/Dell/PowerEdge-R620.yaml": "raid-head"})
    response = post(staff, upload("lib.zip", buf.getvalue(), "application/zip"), kinds=kinds)
    assert response.status_code == 200, response.json()
    r620, sx = response.json()["parts"]
    assert (r620["kind"], r620["kind_given"], r620["catalogue"]) == ("raid-head", True, "enclosures")
    enclosure = cat.Enclosure.objects.get(slug="dell-poweredge-r620")
    assert enclosure.kind == "raid_head" and enclosure.weight_kg == pytest.approx(19.899)
    assert "controller_read_mbps" in enclosure.missing_figures
    assert enclosure.sources["height_u"] == "devicetype-library device-types/Dell/PowerEdge-R620.yaml: u_height 1"
    assert cat.Switch.objects.get(slug="mellanox-sx6036").ports == 36


def test_import_again_is_unchanged_and_a_changed_file_updates(staff):
    r730xd_imported(staff)
    again = post(staff, upload("PowerEdge-R730xd.yaml"), kind="server").json()["parts"][0]
    assert again["action"] == "unchanged" and again["changes"] == {}
    heavier = (DATA / "PowerEdge-R730xd.yaml").read_text().replace("weight: 32.5", "weight: 30")
    changed = post(staff, upload("PowerEdge-R730xd.yaml", heavier.encode()), kind="server").json()["parts"][0]
    assert changed["action"] == "updated" and changed["changes"]["weight_kg"] == {"before": 32.5, "after": 30.0}
    assert cat.Server.objects.get(slug="dell-poweredge-r730xd").weight_kg == 30.0


def test_import_refuses_a_slug_of_another_kind_and_unknown_kinds(staff):
    sx = (DATA / "SX6036.yaml").read_text().replace("slug: mellanox-sx6036", "slug: r730xd")  # a shipped server's slug
    response = post(staff, upload("SX6036.yaml", sx.encode()))
    assert response.status_code == 400
    assert response.json()["errors"][0]["key"] == "slug" and "already a catalogue server" in response.json()["errors"][0]["problem"]
    response = post(staff, upload("SX6036.yaml"), kinds=json.dumps({"SX6036.yaml": "router"}))
    assert response.status_code == 400 and "kinds" in response.json()
    response = post(staff, upload("SX6036.yaml"), kinds=json.dumps({"other.yaml": "switch"}))
    assert response.status_code == 400 and response.json()["errors"][0]["file"] == "other.yaml"
    response = post(staff, upload("SX6036.yaml"), kinds="{not json")
    assert response.status_code == 400 and "kinds" in response.json()


def test_import_is_staff_only(api):
    assert post(api, upload("SX6036.yaml")).status_code == 401
    api.force_authenticate(User.objects.create_user("ann", password="x"))
    assert post(api, upload("SX6036.yaml")).status_code == 403
    assert not cat.Switch.objects.filter(slug="mellanox-sx6036").exists()


def test_import_size_limits(staff, settings, monkeypatch):
    from dcim import library

    monkeypatch.setattr(library, "MAX_FILE_BYTES", 100)
    response = post(staff, upload("SX6036.yaml"))
    assert response.status_code == 400 and "the limit is 100 bytes" in response.json()["files"][0]
    assert post(staff).status_code == 400  # no file
    response = post(staff, upload("notes.txt", b"hello", "text/plain"))
    assert response.status_code == 400 and "neither a .yaml" in response.json()["files"][0]


# ---------------------------------------------------------------- an incomplete part in designs


def _template_with(server: cat.Server) -> cat.BrickTemplate:
    base = cat.BrickTemplate.objects.get(slug="md3460-performance")
    base.pk, base.id, base.slug, base.server = None, None, "imported-server-brick", server
    base._state.adding = True
    base.save()
    return base


def test_incomplete_server_is_refused_by_evaluate_naming_part_and_figures(staff, api):
    server = r730xd_imported(staff)
    _template_with(server)
    response = api.post("/api/v1/evaluate/", {"bricks": [{"template": "imported-server-brick", "count": 1}]}, format="json")
    assert response.status_code == 400
    message = response.json()["bricks"][0]["template"][0]
    assert "server 'dell-poweredge-r730xd' (Dell PowerEdge R730xd) is incomplete: no pcie_slots, internal_bays, power_w yet" in message


def test_solve_names_the_incomplete_part_it_left_out(staff, api):
    server = r730xd_imported(staff)
    _template_with(server)
    response = api.post("/api/v1/solve/", {"targets": {"usable_pib": 0.1}, "templates": ["imported-server-brick"]}, format="json")
    assert response.status_code == 400, response.json()
    message = response.json()["templates"][0]
    assert "left out as incomplete: server 'dell-poweredge-r730xd' (Dell PowerEdge R730xd) is incomplete" in message


def test_incomplete_part_is_refused_when_saving_a_design_and_in_a_brick_template(staff):
    server = r730xd_imported(staff)
    _template_with(server)
    response = staff.post(
        "/api/v1/designs/", {"name": "x", "spec": {"bricks": [{"template": "imported-server-brick", "count": 1}]}}, format="json"
    )
    assert response.status_code == 400 and "is incomplete" in json.dumps(response.json())
    base = cat.BrickTemplate.objects.get(slug="md3460-performance")
    fields = {
        "slug": "mine",
        "name": "Mine",
        "server": server.slug,
        "network_adapter": base.network_adapter.slug,
        "head": base.head.slug,
        "disk": base.disk.slug,
        "raid_data_disks": 8,
    }
    response = staff.post("/api/v1/brick-templates/", fields, format="json")
    assert response.status_code == 400, response.json()
    assert "is incomplete" in json.dumps(response.json()["server"])


def test_incomplete_switch_in_a_rack_is_refused(staff, api):
    post(staff, upload("SX6036.yaml"))
    rack = cat.Rack.objects.get(slug="rack-42u")
    cat.RackSwitch.objects.create(rack=rack, switch=cat.Switch.objects.get(slug="mellanox-sx6036"))
    response = api.post("/api/v1/evaluate/", {"bricks": [{"template": "md3460-performance", "count": 1}]}, format="json")
    assert response.status_code == 400
    assert "switch 'mellanox-sx6036' (Mellanox SX6036) is incomplete: no weight_kg, power_w yet" in response.json()["rack"][0]


def test_entering_the_figures_with_source_notes_completes_the_part(staff, api):
    server = r730xd_imported(staff)
    _template_with(server)
    notes = {**server.sources, "pcie_slots": "Dell R730xd technical guide: 6 PCIe 3.0 slots"}
    response = staff.patch(f"/api/v1/catalogue/servers/{server.slug}/", {"pcie_slots": 6, "sources": notes}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["missing_figures"] == ["internal_bays", "power_w"] and response.json()["incomplete"] is True
    notes = {
        **notes,
        "internal_bays": "Dell R730xd technical guide: 12 x 3.5 inch front + 4 mid-bay",
        "power_w": "Assumption: 300 W under streaming I/O",
    }
    response = staff.patch(
        f"/api/v1/catalogue/servers/{server.slug}/", {"internal_bays": 16, "power_w": 300, "sources": notes}, format="json"
    )
    assert response.status_code == 200 and response.json()["incomplete"] is False
    response = api.post("/api/v1/evaluate/", {"bricks": [{"template": "imported-server-brick", "count": 1}]}, format="json")
    assert response.status_code == 200, response.json()


def test_a_value_without_its_note_keeps_the_part_incomplete(staff):
    server = r730xd_imported(staff)
    response = staff.patch(f"/api/v1/catalogue/servers/{server.slug}/", {"pcie_slots": 6}, format="json")
    assert response.status_code == 200 and "pcie_slots" in response.json()["missing_figures"]
