"""Packaging: the runtime requirements hold no test or lint tool, the image runs as a user that is not root
and checks its own health, and docker-compose migrates once before the services that need the schema."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

# Tools that only tests, lint or benchmarks use: none of them may reach the production image.
DEV_ONLY = {"ruff", "playwright", "pypdf", "schemathesis", "hypothesis", "pytest", "pytest-django", "coverage", "pytest-cov"}


def requirement_names(path: Path) -> set[str]:
    names = set()
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        name = re.split(r"[\[=<>!~;\s]", line, maxsplit=1)[0]
        names.add(name.lower().replace("_", "-"))
    return names


def dockerfile_instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_runtime_requirements_hold_no_test_or_lint_tool():
    runtime = requirement_names(ROOT / "requirements.txt")
    assert "django" in runtime and "gunicorn" in runtime  # the parser reads the file
    assert not runtime & DEV_ONLY, f"test/lint tools in requirements.txt: {sorted(runtime & DEV_ONLY)}"


def test_dev_requirements_include_the_runtime_list_and_the_test_tools():
    text = (ROOT / "requirements-dev.txt").read_text()
    assert re.search(r"^-r requirements\.txt$", text, re.M)
    dev = requirement_names(ROOT / "requirements-dev.txt")
    assert {"ruff", "playwright", "pypdf", "schemathesis", "pytest", "pytest-django"} <= dev


def test_every_requirement_is_pinned():
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / name).read_text().splitlines():
            line = line.split("#", 1)[0].strip()
            if line and not line.startswith("-"):
                assert "==" in line, f"{name}: {line} is not pinned"


def test_image_installs_only_runtime_requirements():
    runs = " ".join(rest for keyword, rest in dockerfile_instructions() if keyword in ("RUN", "COPY"))
    assert "requirements.txt" in runs
    assert "requirements-dev" not in runs


def test_image_runs_as_a_user_that_is_not_root_and_has_a_healthcheck():
    instructions = dockerfile_instructions()
    users = [rest for keyword, rest in instructions if keyword == "USER"]
    assert users, "the Dockerfile sets no USER: the container would run as root"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0")
    assert any(keyword == "HEALTHCHECK" and "/api/v1/health/" in rest for keyword, rest in instructions)
    assert any(keyword == "RUN" and "collectstatic" in rest for keyword, rest in instructions)


def test_compose_migrates_once_before_web_worker_and_beat():
    services = compose()["services"]
    migrate = services["migrate"]
    command = migrate["command"] if isinstance(migrate["command"], str) else " ".join(migrate["command"])
    assert "migrate" in command and "load_catalogue" in command
    for name in ("web", "worker", "beat"):
        depends = services[name]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully", name
    web_command = services["web"]["command"]
    web_command = web_command if isinstance(web_command, str) else " ".join(web_command)
    assert web_command.split()[0] == "gunicorn"
    assert "migrate" not in web_command and "load_catalogue" not in web_command


def test_compose_has_healthchecks_for_web_and_worker():
    services = compose()["services"]
    web = " ".join(services["web"]["healthcheck"]["test"])
    assert "/api/v1/health/" in web
    worker = " ".join(services["worker"]["healthcheck"]["test"])
    assert "inspect ping" in worker and "celery@$$HOSTNAME" in worker


def test_compose_worker_serves_both_queues_and_beat_runs():
    services = compose()["services"]
    worker = services["worker"]["command"]
    assert "-Q solve,exports" in worker and "--concurrency=2" in worker
    assert services["beat"]["command"].startswith("celery -A config beat")


def test_the_gunicorn_config_file_named_by_the_image_and_compose_exists():
    web_command = compose()["services"]["web"]["command"]
    cmd = [rest for keyword, rest in dockerfile_instructions() if keyword == "CMD"][-1]
    for text in (web_command, cmd):
        match = re.search(r"-c\W+([\w./-]+\.py)", text)
        if match:
            assert (ROOT / match.group(1)).is_file(), f"{match.group(1)} is named but missing"
