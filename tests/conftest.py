"""Shared fixtures: the default catalogue loaded once per test session, API clients, the study table."""

from pathlib import Path

import pytest
import yaml
from rest_framework.test import APIClient

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Load the shipped catalogue into the test database once; each test runs in a rolled-back transaction."""
    from hardware_catalog.importers import load_catalogue

    with django_db_blocker.unblock():
        load_catalogue()


@pytest.fixture(scope="session")
def study():
    """The reference study's acceptance table (tests/data/reference_study.yaml)."""
    return yaml.safe_load((DATA / "reference_study.yaml").read_text())


@pytest.fixture
def api():
    return APIClient()


@pytest.fixture(autouse=True)
def fresh_catalogue_snapshot():
    """Each test starts without the process's in-memory catalogue: a test's rolled-back changes
    (which send no signal when they are undone) must not reach the next test through it."""
    from api import throttles
    from planner.services.catalogue import catalogue_changed

    catalogue_changed()
    # the rate limiter's memo of past windows' counts outlives cache.clear(): a test that sets a low limit
    # must not inherit the previous minute's count of other tests' anonymous requests
    throttles._final_counts.clear()
    yield
