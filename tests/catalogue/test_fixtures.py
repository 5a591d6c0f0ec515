"""The shipped catalogue: it loads, it is complete, every figure has a source, loading is safe to repeat."""

from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from hardware_catalog import models as m
from hardware_catalog.importers import FIXTURES_DIR, CatalogueLoadError, load_catalogue

pytestmark = pytest.mark.django_db

SOURCED = [m.Disk, m.Server, m.Enclosure, m.Adapter, m.Switch, m.Rack, m.TuningProfile, m.BrickTemplate]


def test_fixtures_hold_the_catalogue_the_issue_asks_for():
    disks = set(m.Disk.objects.values_list("slug", flat=True))
    assert {f"nl-sas-{n}tb" for n in (2, 3, 4, 6, 8, 10, 12, 16)} <= disks
    assert {"sas-10k-300gb", "sas-10k-600gb", "sas-15k-300gb", "sas-15k-600gb", "sata-1tb", "ssd-sas-3-84tb"} <= disks
    assert {"r620", "r630", "r730xd", "r510", "r6415", "pe2970"} <= set(m.Server.objects.values_list("slug", flat=True))
    kinds = set(m.Enclosure.objects.values_list("kind", flat=True))
    assert kinds == {"raid_head", "expansion", "jbod", "iscsi_array", "internal"}
    assert {"md3460", "md3060e", "md3420", "md3400", "qct-jb4602", "eql-ps6500"} <= set(m.Enclosure.objects.values_list("slug", flat=True))
    adapters = set(m.Adapter.objects.values_list("slug", flat=True))
    assert {
        "sas-hba-6g",
        "sas-hba-12g",
        "ib-qdr",
        "ib-fdr",
        "ib-edr",
        "ib-hdr",
        "eth-1g",
        "eth-10g",
        "eth-25g",
        "eth-40g",
        "eth-100g",
    } <= adapters
    assert {"rack-42u", "rack-48u"} <= set(m.Rack.objects.values_list("slug", flat=True))
    assert set(m.Switch.objects.values_list("kind", flat=True)) == {"infiniband", "ethernet"}
    roles = set(m.BrickTemplate.objects.values_list("role", flat=True))
    assert {"performance", "capacity", "internal", "jbod", "iscsi"} <= roles
    cell = m.MetadataCell.objects.get(slug="mds-cell")
    assert {i.role for i in cell.items.all()} >= {"MDS", "MGS", "management"}


@pytest.mark.parametrize("model", SOURCED, ids=lambda c: c.__name__)
def test_every_figure_the_engine_uses_has_a_source_note(model):
    for obj in model.objects.all():
        assert obj.missing_sources() == [], f"{model.__name__} {obj.slug}"


def test_a_figure_without_a_source_note_fails_validation():
    disk = m.Disk.objects.get(slug="nl-sas-4tb")
    disk.sources = {k: v for k, v in disk.sources.items() if k != "read_mbps"}
    with pytest.raises(ValidationError) as exc:
        disk.full_clean()
    assert "read_mbps" in str(exc.value)


def test_the_illustrative_price_list_covers_every_part():
    price_list = m.PriceList.objects.get(slug="illustrative")
    assert price_list.illustrative and price_list.currency == "USD" and price_list.effective_date
    priced = set(price_list.items.values_list("kind", "item_slug"))
    for kind, model in (
        ("disk", m.Disk),
        ("server", m.Server),
        ("enclosure", m.Enclosure),
        ("adapter", m.Adapter),
        ("switch", m.Switch),
        ("rack", m.Rack),
    ):
        for slug in model.objects.values_list("slug", flat=True):
            assert (kind, slug) in priced, f"no price for {kind} {slug}"
    assert ("service", "support-per-server-year") in priced


def test_loading_again_keeps_admin_edits_unless_asked_to_update():
    disk = m.Disk.objects.get(slug="nl-sas-4tb")
    disk.read_mbps = 123
    disk.save()
    report = load_catalogue()
    assert not report.created and not report.updated
    assert m.Disk.objects.get(slug="nl-sas-4tb").read_mbps == 123
    report = load_catalogue(update=True)
    assert "nl-sas-4tb" in report.updated["Disk"]
    assert m.Disk.objects.get(slug="nl-sas-4tb").read_mbps == 175


def test_loading_into_an_empty_database_creates_everything():
    m.PriceList.objects.all().delete()
    m.BrickTemplate.objects.all().delete()
    m.MetadataCell.objects.all().delete()
    m.Rack.objects.all().delete()
    report = load_catalogue()
    assert len(report.created["BrickTemplate"]) == 6
    assert report.created["PriceList"] == ["illustrative"]
    assert m.Rack.objects.get(slug="rack-42u").rack_switches.count() == 2


def test_the_management_command_reports_what_it_did(capsys):
    call_command("load_catalogue")
    assert "Catalogue loaded" in capsys.readouterr().out


def _copy_fixtures(tmp_path: Path) -> Path:
    for path in FIXTURES_DIR.glob("*.yaml"):
        (tmp_path / path.name).write_text(path.read_text())
    return tmp_path


def test_a_broken_fixture_is_refused_with_its_name(tmp_path):
    folder = _copy_fixtures(tmp_path)
    (folder / "disks.yaml").write_text("records: [ {slug: x\n")
    with pytest.raises(CatalogueLoadError, match="disks.yaml: not valid YAML"):
        load_catalogue(folder)


def test_a_fixture_naming_an_unknown_part_is_refused(tmp_path):
    folder = _copy_fixtures(tmp_path)
    text = (folder / "bricks.yaml").read_text().replace("server: r620", "server: r999", 1)
    (folder / "bricks.yaml").write_text(text)
    with pytest.raises(CatalogueLoadError, match="unknown Server slug 'r999'"):
        load_catalogue(folder, update=True)
