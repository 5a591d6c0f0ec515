"""`make user` creates a sign-in in a fresh shell (no SECRET_KEY, no DEBUG set), and the login page says how."""

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(
    shutil.which("make") is None or not (ROOT / ".venv" / ".installed").exists(), reason="needs make and the installed .venv"
)
def test_make_user_creates_a_sign_in_in_a_fresh_shell(tmp_path):
    db = tmp_path / "fresh.sqlite3"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{db}",
        "DJANGO_SUPERUSER_USERNAME": "newcomer",
        "DJANGO_SUPERUSER_PASSWORD": "pw-newcomer-12345",
        "DJANGO_SUPERUSER_EMAIL": "newcomer@example.org",
    }
    done = subprocess.run(["make", "-s", "user", "ARGS=--noinput"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    with sqlite3.connect(db) as conn:
        assert conn.execute("select username, is_superuser from auth_user").fetchall() == [("newcomer", 1)]


@pytest.mark.django_db
def test_login_page_says_how_to_create_a_sign_in(client):
    html = client.get("/accounts/login/").content.decode()
    assert "<code>make user</code>" in html and "DEBUG=true .venv/bin/python manage.py createsuperuser" in html
