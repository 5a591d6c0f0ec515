"""Helpers shared by tests."""


def rack_spec(row: dict, **extra) -> dict:
    """A DesignSpec for one row of the study's rack table."""
    spec = {
        "name": f"Reference rack {row['id']}",
        "bricks": [{"template": row["template"], "count": row["count"], "disk": row["disk"]}],
        "metadata": {"cell": "mds-cell", "placement": row["placement"]},
        "rack": "rack-42u",
        "tuning": "large-io",
        "failover": "paired",
        "price_list": "illustrative",
    }
    spec.update(extra)
    return spec


def short_errors(body):
    """Error bodies with the '; known: ...' choices cut off, to compare the messages themselves."""
    if isinstance(body, dict):
        return {k: short_errors(v) for k, v in body.items()}
    if isinstance(body, list):
        return [short_errors(v) for v in body]
    if isinstance(body, str):
        return body.split("; known:")[0].split("; network adapters:")[0]
    return body


def evaluate_ok(api, spec: dict, calibration=None) -> dict:
    """POST a DesignSpec (with `calibration` when given) to the evaluate API; its body, asserting a 200."""
    body = {**spec, "calibration": calibration} if calibration else spec
    response = api.post("/api/v1/evaluate/", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()
