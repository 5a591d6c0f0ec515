"""Browser pages rendered by Django (the real-browser tests live in tests/browser)."""

import re

import pytest

pytestmark = pytest.mark.django_db


def test_home_page_links_to_catalogue_and_api_docs(client):
    html = client.get("/").content.decode()
    assert 'href="/catalogue/"' in html and 'href="/api/docs/"' in html


def test_catalogue_page_lists_bricks_with_key_figures(client):
    response = client.get("/catalogue/")
    assert response.status_code == 200
    html = response.content.decode()
    row = re.search(r'<tr data-slug="md3460-performance">(.*?)</tr>', html, re.S).group(1)
    cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r'<td class="num">(.*?)</td>', row, re.S)]
    # OSTs, raw TB, usable TiB, read GB/s, write GB/s, height U, power W
    assert cells[:5] == ["6", "240", "174.6", "4.50", "4.50"]
    assert "RAID controllers" in row
    for slug in ("md3460-capacity", "r730xd-internal", "jbod-zfs", "iscsi-ps6500", "nl-sas-16tb", "ib-hdr", "rack-48u"):
        assert f'data-slug="{slug}"' in html
    assert "Illustrative" in html


def test_pages_load_no_scripts_from_outside(client):
    for url in ("/", "/catalogue/", "/api/docs/"):
        html = client.get(url).content.decode()
        assert not re.search(r'(src|href)="https?://', html), url
