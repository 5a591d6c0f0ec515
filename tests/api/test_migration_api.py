"""POST /api/v1/migration/: the time to copy data between file systems, bounded by the slower side."""

import pytest

pytestmark = pytest.mark.django_db

URL = "/api/v1/migration/"


def test_migration_bounded_by_the_target(api):
    # 1.5 PB = 1500 TB; 12 clients x min(1.2 GB/s link, 0.25 GB/s per copy stream) = 3 GB/s; source 20 GB/s,
    # target 2 GB/s: the target bounds it, 1.5e15 B / 2e9 B/s = 750,000 s = 208.33 h = 8.68 days
    body = {"data_tb": 1500, "clients": 12, "client_gbps": 1.2, "source_gbps": 20, "target_gbps": 2}
    response = api.post(URL, body, format="json")
    assert response.status_code == 200, response.content
    out = response.json()
    assert out["bound_by"] == "target"
    assert out["rate_gbps"] == 2.0
    assert out["hours"] == pytest.approx(208.33, abs=0.01)
    assert out["days"] == pytest.approx(8.68, abs=0.01)
    assert out["sides_gbps"] == {"source": 20.0, "target": 2.0, "clients": 3.0}
    assert any("per-client" in text for text in out["assumptions"])


def test_migration_bounded_by_the_clients_with_a_stated_per_client_rate(api):
    # 6 clients x min(1.2, 0.1) = 0.6 GB/s against source 5 and target 4: 1500e12 / 0.6e9 = 2.5e6 s = 694.44 h
    body = {"data_tb": 1500, "clients": 6, "client_gbps": 1.2, "source_gbps": 5, "target_gbps": 4, "per_client_rate_gbps": 0.1}
    out = api.post(URL, body, format="json").json()
    assert out["bound_by"] == "clients"
    assert out["hours"] == pytest.approx(694.44, abs=0.01)
    assert out["per_client_gbps"] == 0.1


@pytest.mark.parametrize(
    "change, field",
    [
        ({"clients": 0}, "clients"),
        ({"data_tb": -1}, "data_tb"),
        ({"source_gbps": "fast"}, "source_gbps"),
        ({"target_gbps": 0}, "target_gbps"),
        ({"per_client_rate_gbps": None}, "per_client_rate_gbps"),
        ({"speed": 3}, "speed"),
    ],
)
def test_bad_migration_input_is_a_400_naming_the_field(api, change, field):
    body = {"data_tb": 100, "clients": 4, "client_gbps": 1.2, "source_gbps": 5, "target_gbps": 4, **change}
    response = api.post(URL, body, format="json")
    assert response.status_code == 400
    assert field in response.json()


def test_missing_fields_are_named(api):
    response = api.post(URL, {"data_tb": 100}, format="json")
    assert response.status_code == 400
    assert {"clients", "client_gbps", "source_gbps", "target_gbps"} <= set(response.json())


def test_migration_is_in_the_openapi_schema(api):
    schema = api.get("/api/schema/?format=json").json()
    op = schema["paths"]["/api/v1/migration/"]["post"]
    assert "200" in op["responses"] and "400" in op["responses"]
