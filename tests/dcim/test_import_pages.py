"""The catalogue's "Import device types" page: staff only, upload -> preview -> confirm, errors by file
and key, and incomplete parts marked on the catalogue page."""

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile

from hardware_catalog import models as cat

DATA = Path(__file__).parent / "data"
URL = "/catalogue/import/"
pytestmark = pytest.mark.django_db


def upload(name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, (DATA / name).read_bytes(), content_type="application/x-yaml")


@pytest.fixture
def staff(client):
    client.force_login(User.objects.create_user("ops", password="x", is_staff=True))
    return client


def test_import_page_is_for_staff(client):
    assert client.get(URL).status_code == 302  # to sign in
    client.force_login(User.objects.create_user("ann", password="x"))
    assert client.get(URL).status_code == 403
    assert "Import device types" not in client.get("/catalogue/").content.decode()


def test_import_page_preview_then_confirm_with_a_changed_kind(staff):
    page = staff.get(URL)
    assert page.status_code == 200 and 'name="files"' in page.content.decode()
    preview = staff.post(URL, {"files": [upload("PowerEdge-R730xd.yaml"), upload("SX6036.yaml")], "action": "preview"})
    html = preview.content.decode()
    assert preview.status_code == 200 and "Preview: nothing is written yet" in html
    assert "guessed: 36 network ports" in html and "devicetype-library PowerEdge-R730xd.yaml: u_height 2" in html
    assert "<script" not in html.split("</header>", 1)[1]  # no inline script (CSP)
    assert not cat.Server.objects.filter(slug="dell-poweredge-r730xd").exists()
    token = preview.context["token"]
    done = staff.post(URL, {"action": "confirm", "token": token, "kind:dell-poweredge-r730xd": "server", "kind:mellanox-sx6036": "switch"})
    assert done.status_code == 200 and "Imported" in done.content.decode()
    assert cat.Server.objects.get(slug="dell-poweredge-r730xd").incomplete
    assert cat.Switch.objects.get(slug="mellanox-sx6036").ports == 36
    again = staff.post(URL, {"action": "confirm", "token": token})
    assert again.status_code == 400 and "expired or was already imported" in again.content.decode()
    catalogue = staff.get("/catalogue/").content.decode()
    assert "Import device types" in catalogue
    row = catalogue.split('data-slug="dell-poweredge-r730xd"', 1)[1].split("</tr>", 1)[0]
    assert "incomplete" in row and "missing: pcie_slots, internal_bays, power_w" in row


def test_import_page_lists_errors_by_file_and_key(staff):
    response = staff.post(URL, {"files": [upload("broken.yaml")], "action": "preview"})
    html = response.content.decode()
    assert response.status_code == 400 and "Nothing was imported" in html
    assert (
        "<td><code>broken.yaml</code></td><td><code>weight_unit</code></td><td>required when weight is given (kg, g, lb or oz)</td>" in html
    )


def test_admin_shows_an_imported_part_incomplete(staff):
    user = User.objects.get(username="ops")
    user.is_superuser = True
    user.save()
    token = staff.post(URL, {"files": [upload("SX6036.yaml")], "action": "preview"}).context["token"]
    staff.post(URL, {"action": "confirm", "token": token})
    switch = cat.Switch.objects.get(slug="mellanox-sx6036")
    page = staff.get(f"/admin/hardware_catalog/switch/{switch.pk}/change/")
    assert page.status_code == 200 and "weight_kg" in page.content.decode()
    listing = staff.get("/admin/hardware_catalog/switch/").content.decode()
    assert 'alt="False"' in listing.split("mellanox-sx6036", 1)[1].split("</tr>", 1)[0]  # the "Complete" column


def test_import_page_confirm_with_a_wrong_token_is_a_400(staff):
    staff.post(URL, {"files": [upload("SX6036.yaml")], "action": "preview"})
    for token in ("", "0" * 32, "é" * 10):
        response = staff.post(URL, {"action": "confirm", "token": token})
        assert response.status_code == 400 and "expired or was already imported" in response.content.decode()
    assert not cat.Switch.objects.filter(slug="mellanox-sx6036").exists()
