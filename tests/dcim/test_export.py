"""The DCIM zip: its members, the CSVs' headers and rows for the study's rack B, device-type YAML valid
by the library's rules, the API (owner and readers only, options checked) and the page."""

import csv
import io
import zipfile

import pytest
import yaml

from dcim.export import ExportOptions, export_zip, spec_export
from dcim.inventory import inventory_for_spec
from dcim.library import validate_device_type

pytestmark = pytest.mark.django_db

STUDY_B = {
    "name": "Study rack B: performance, metadata in the rack",
    "bricks": [{"template": "md3460-performance", "count": 6, "disk": "nl-sas-4tb"}],
    "metadata": {"cell": "mds-cell", "placement": "in_rack"},
}
STUDY_A = {"name": "Study rack A", "bricks": [{"template": "md3460-capacity", "count": 2}]}

# The columns NetBox's import forms take (netbox/dcim/forms/bulk_import.py, tenancy and extras forms):
# every column we write must be one of them.
NETBOX_FIELDS = {
    "manufacturers": {"name", "slug", "description", "tags"},
    "tenants": {"name", "slug", "group", "description", "comments", "tags"},
    "device-roles": {"name", "slug", "color", "vm_role", "config_template", "description", "tags"},
    "tags": {"name", "slug", "color", "description", "weight", "object_types"},
    "sites": {"name", "slug", "status", "region", "group", "tenant", "facility", "time_zone", "description", "comments", "tags"},
    "racks": {
        "site",
        "location",
        "name",
        "facility_id",
        "tenant",
        "status",
        "role",
        "form_factor",
        "serial",
        "asset_tag",
        "width",
        "u_height",
    }
    | {"desc_units", "outer_width", "outer_depth", "outer_unit", "mounting_depth", "airflow", "weight", "max_weight", "weight_unit"}
    | {"description", "comments", "tags"},
    "devices": {"name", "role", "tenant", "manufacturer", "device_type", "platform", "serial", "asset_tag", "status", "site", "location"}
    | {"rack", "position", "face", "latitude", "longitude", "parent", "device_bay", "airflow", "virtual_chassis", "vc_position"}
    | {"vc_priority", "cluster", "description", "config_template", "comments", "tags"},
    "cables": {"side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type", "side_b_name", "type", "status", "tenant"}
    | {"label", "color", "length", "length_unit", "description", "comments", "tags"},
}


def _zip(spec=STUDY_B, **options):
    _, data = spec_export(spec=spec, options=ExportOptions(**options))
    return zipfile.ZipFile(io.BytesIO(data))


def _rows(zf, name):
    return list(csv.reader(io.StringIO(zf.read(name).decode())))


def test_zip_members_for_the_study_rack():
    zf = _zip()
    names = zf.namelist()
    assert names[0] == "README.txt" and "cabling-plan.csv" in names
    assert sorted(n for n in names if n.startswith("device-types/")) == [
        "device-types/APC/Rack-PDU-2G-metered-0U-3-phase-32-A.yaml",
        "device-types/Dell/Networking-N2048.yaml",
        "device-types/Dell/PowerEdge-R620-2-x-sas-hba-12g-1-x-ib-fdr.yaml",
        "device-types/Dell/PowerEdge-R620.yaml",
        "device-types/Dell/PowerVault-MD3420.yaml",
        "device-types/Dell/PowerVault-MD3460.yaml",
        "device-types/Mellanox/SX6036.yaml",
    ]
    assert [n for n in names if n.startswith("netbox/")] == [
        "netbox/01-manufacturers.csv",
        "netbox/03-device-roles.csv",
        "netbox/04-tags.csv",
        "netbox/05-sites.csv",
        "netbox/06-racks.csv",
        "netbox/07-devices.csv",
        "netbox/08-cables.csv",
    ]  # no tenant given: no tenants file
    assert [n for n in names if n.startswith("nautobot/")] == [
        "nautobot/01-manufacturers.csv",
        "nautobot/03-roles.csv",
        "nautobot/04-tags.csv",
        "nautobot/05-locations.csv",
        "nautobot/06-racks.csv",
        "nautobot/07-devices.csv",
    ]
    readme = zf.read("README.txt").decode()
    assert "1 rack(s), 21 devices of 7 device types, 55 cables" in readme
    assert readme.index("01-manufacturers") < readme.index("device-types/") < readme.index("07-devices.csv") < readme.index("08-cables.csv")
    assert "management patch cables" in readme  # the inventory's notes travel with the zip


def test_every_device_type_file_is_valid_library_yaml():
    zf = _zip(STUDY_A)  # also the MD3060e, which the community library lacks
    files = [n for n in zf.namelist() if n.startswith("device-types/")]
    assert "device-types/Dell/PowerVault-MD3060e-expansion-enclosure.yaml" in files
    for name in files:
        doc = yaml.safe_load(zf.read(name))
        assert validate_device_type(doc, name) == [], name
    md3460 = yaml.safe_load(zf.read("device-types/Dell/PowerVault-MD3460.yaml"))
    assert md3460["manufacturer"] == "Dell" and md3460["model"] == "PowerVault MD3460" and md3460["u_height"] == 4
    assert md3460["weight"] == 50 and md3460["weight_unit"] == "kg"
    assert "Dell MD3460: 4 x 12 Gb/s SAS host ports per controller" in md3460["comments"]  # the catalogue's source note
    assert len(md3460["interfaces"]) == 8 + 2 + 2
    server = yaml.safe_load(zf.read("device-types/Dell/PowerEdge-R620-2-x-sas-hba-12g-1-x-ib-fdr.yaml"))
    assert {i["name"]: i["type"] for i in server["interfaces"]}["ib1-1"] == "infiniband-fdr"
    assert server["power-ports"] == [
        {"name": "PSU1", "type": "iec-60320-c14", "maximum_draw": 750, "allocated_draw": 168},
        {"name": "PSU2", "type": "iec-60320-c14", "maximum_draw": 750, "allocated_draw": 168},
    ]  # R620: 750 W supplies; 300 W typical + 2 x 13 W SAS HBA + 10 W FDR HCA = 336 W, half on each


def test_netbox_csvs_for_the_study_rack():
    zf = _zip(tenant="Physics")
    for name in zf.namelist():
        if name.startswith("netbox/"):
            kind = name.split("-", 1)[1].removesuffix(".csv")
            header = _rows(zf, name)[0]
            assert set(header) <= NETBOX_FIELDS[kind], name
    assert _rows(zf, "netbox/01-manufacturers.csv") == [["name", "slug"], ["APC", "apc"], ["Dell", "dell"], ["Mellanox", "mellanox"]]
    assert _rows(zf, "netbox/02-tenants.csv") == [["name", "slug"], ["Physics", "physics"]]
    assert _rows(zf, "netbox/04-tags.csv")[1:] == [["ha-1", "ha-1", "9e9e9e"], ["ha-2", "ha-2", "9e9e9e"], ["ha-3", "ha-3", "9e9e9e"]]
    roles = dict((r[0], r[2]) for r in _rows(zf, "netbox/03-device-roles.csv")[1:])
    assert roles["Storage server"] == "2f6db5" and roles["RAID enclosure"] == "d9822b"  # the elevation's colours
    assert _rows(zf, "netbox/06-racks.csv")[1][:6] == ["Planned storage", "study-rack-b-rack1", "planned", "Physics", "19", "42"]
    devices = _rows(zf, "netbox/07-devices.csv")
    assert devices[0] == [
        "name",
        "role",
        "tenant",
        "manufacturer",
        "device_type",
        "status",
        "site",
        "rack",
        "position",
        "face",
        "tags",
        "comments",
    ]
    by_name = {r[0]: r for r in devices[1:]}
    assert len(by_name) == 21
    assert by_name["study-rack-b-oss03"] == [
        "study-rack-b-oss03",
        "Storage server",
        "Physics",
        "Dell",
        "PowerEdge R620 (2 x sas-hba-12g, 1 x ib-fdr)",
        "planned",
        "Planned storage",
        "study-rack-b-rack1",
        "15",
        "front",
        "ha-2",
        "",
    ]
    assert by_name["study-rack-b-rack1-pdu-a"][8:10] == ["", ""]  # 0U: in the rack, no position or face
    cables = _rows(zf, "netbox/08-cables.csv")
    assert cables[0][:7] == ["side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type", "side_b_name", "type"]
    assert len(cables) - 1 == 24 + 6 + 25
    assert cables[1] == [
        "study-rack-b-oss01",
        "dcim.interface",
        "sas1-1",
        "study-rack-b-raid01",
        "dcim.interface",
        "ctrl0-host0",
        "",
        "planned",
        "Physics",
        "study-rack-b-oss01:sas1-1",
        "2",
        "m",
    ]
    ib = next(r for r in cables if r[2] == "ib1-1")
    assert ib[3:7] == ["study-rack-b-rack1-sw-ib1", "dcim.interface", "port1", "dac-passive"] and ib[10:] == ["3", "m"]


def test_nautobot_csvs_for_the_study_rack():
    zf = _zip(site="Hall 2")
    devices = _rows(zf, "nautobot/07-devices.csv")
    assert devices[0] == [
        "name",
        "status__name",
        "role__name",
        "device_type__manufacturer__name",
        "device_type__model",
        "location__name",
        "rack__name",
        "rack__location__name",
        "position",
        "face",
        "tags",
        "comments",
    ]  # no tenant__name column without a tenant: Nautobot 3.2 refuses an empty one
    raid1 = next(r for r in devices if r[0] == "study-rack-b-raid01")
    assert raid1[:10] == [
        "study-rack-b-raid01",
        "Planned",
        "RAID enclosure",
        "Dell",
        "PowerVault MD3460",
        "Hall 2",
        "study-rack-b-rack1",
        "Hall 2",
        "1",
        "front",
    ]
    assert _rows(zf, "nautobot/05-locations.csv") == [
        ["name", "location_type__name", "status__name"],
        ["Hall 2", "Site", "Planned"],
    ]
    assert "tenant__name" not in _rows(zf, "nautobot/06-racks.csv")[0]
    with_tenant = _zip(site="Hall 2", tenant="Physics")
    assert _rows(with_tenant, "nautobot/05-locations.csv")[1] == ["Hall 2", "Site", "Planned", "Physics"]
    assert _rows(with_tenant, "nautobot/07-devices.csv")[0][10] == "tenant__name"
    assert _rows(zf, "nautobot/03-roles.csv")[1][2] == "dcim.device"
    assert not [n for n in zf.namelist() if n.startswith("nautobot/") and "cable" in n]  # said in the README instead
    plan = _rows(zf, "cabling-plan.csv")
    assert plan[0][:4] == ["a_device", "a_interface", "b_device", "b_interface"] and len(plan) - 1 == 55


def test_formula_like_cells_stay_text():
    zf = _zip(tenant="=HYPERLINK(1)", site="+site")
    racks = _rows(zf, "netbox/06-racks.csv")
    assert racks[1][0] == "'+site" and racks[1][3] == "'=HYPERLINK(1)"


def test_the_same_design_gives_the_same_bytes():
    inv = inventory_for_spec(STUDY_B)
    assert export_zip(inv, ExportOptions()) == export_zip(inventory_for_spec(STUDY_B), ExportOptions())


# ---------------------------------------------------------------- API


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user("ann", password="pw-123456789")


@pytest.fixture
def design(owner):
    from planner.services.designs import design_create

    return design_create(owner=owner, name="Study rack B", spec={k: v for k, v in STUDY_B.items() if k != "name"})


def test_api_owner_downloads_the_zip(api, owner, design):
    api.force_authenticate(owner)
    response = api.get(f"/api/v1/dcim/exports/{design.pk}/", {"site": "Hall 2", "tenant": "Physics", "prefix": "lustre1"})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == 'attachment; filename="lustre1-dcim.zip"'
    zf = zipfile.ZipFile(io.BytesIO(response.content))
    devices = _rows(zf, "netbox/07-devices.csv")
    assert devices[1][:3] == ["lustre1-raid01", "RAID enclosure", "Physics"] and devices[1][6] == "Hall 2"


def test_api_others_get_404_readers_may_export(api, owner, design, django_user_model):
    from planner.services.designs import design_share

    other = django_user_model.objects.create_user("bob", password="pw-123456789")
    api.force_authenticate(other)
    assert api.get(f"/api/v1/dcim/exports/{design.pk}/").status_code == 404
    design_share(design=design, usernames=["bob"])
    assert api.get(f"/api/v1/dcim/exports/{design.pk}/").status_code == 200
    assert api.get("/api/v1/dcim/exports/999999/").status_code == 404
    api.force_authenticate(None)
    assert api.get(f"/api/v1/dcim/exports/{design.pk}/").status_code in (401, 403)


@pytest.mark.parametrize(
    "params, field",
    [
        ({"prefix": "Bad Prefix"}, "prefix"),
        ({"prefix": "-x"}, "prefix"),
        ({"prefix": "x" * 31}, "prefix"),
        ({"site": "a\x01b"}, "site"),
        ({"site": "s" * 101}, "site"),
        ({"tenant": "t\nx"}, "tenant"),
    ],
)
def test_api_bad_options_are_400_naming_the_field(api, owner, design, params, field):
    api.force_authenticate(owner)
    response = api.get(f"/api/v1/dcim/exports/{design.pk}/", params)
    assert response.status_code == 400
    assert list(response.json()) == [field]


def test_api_design_that_no_longer_resolves_is_400(api, owner, design):
    from planner.models import Design

    Design.objects.filter(pk=design.pk).update(spec={"bricks": [{"template": "gone", "count": 1}]})
    api.force_authenticate(owner)
    response = api.get(f"/api/v1/dcim/exports/{design.pk}/")
    assert response.status_code == 400
    assert "gone" in str(response.json()["spec"])


# ---------------------------------------------------------------- page


def test_page_shows_what_the_zip_holds_and_downloads_it(client, owner, design):
    client.force_login(owner)
    page = client.get("/dcim/export/", {"design": design.pk})
    assert page.status_code == 200
    text = page.content.decode()
    assert "21 devices of 7 device types, 55 cables" in text and "Download study-rack-b-dcim.zip" in text
    download = client.get("/dcim/export/", {"design": design.pk, "download": "1", "prefix": "b"})
    assert download.status_code == 200 and download["Content-Type"] == "application/zip"
    assert "b-rack1" in zipfile.ZipFile(io.BytesIO(download.content)).read("netbox/06-racks.csv").decode()
    bad = client.get("/dcim/export/", {"design": design.pk, "prefix": "NO"})
    assert bad.status_code == 400 and "lower-case letters" in bad.content.decode()


def test_page_needs_sign_in_and_hides_others_designs(client, design, django_user_model):
    assert client.get("/dcim/export/").status_code == 302
    other = django_user_model.objects.create_user("bob", password="pw-123456789")
    client.force_login(other)
    page = client.get("/dcim/export/", {"design": design.pk})
    assert "does not exist or is not shared with you" in page.content.decode() and "Study rack B" not in page.content.decode()


def test_designer_links_to_the_export(client, owner, design):
    client.force_login(owner)
    page = client.get("/designer/", {"design": design.pk})
    assert f'href="/dcim/export/?design={design.pk}"' in page.content.decode()
