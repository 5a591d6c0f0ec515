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
