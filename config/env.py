"""Small helpers that read settings from the environment and fail loudly on bad values."""

import os


class ImproperlyConfiguredEnv(RuntimeError):
    """Raised when a required environment variable is missing or malformed."""


def env_str(name: str, default: str | None = None, *, required: bool = False) -> str | None:
    """Return the variable's text; raise if it is required and missing or empty."""
    value = os.environ.get(name)
    if value is None or value == "":
        if required:
            raise ImproperlyConfiguredEnv(f"Environment variable {name} is required but not set.")
        return default
    return value


def env_bool(name: str, default: bool = False) -> bool:
    """Read a boolean: 1/true/yes/on or 0/false/no/off (any case)."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfiguredEnv(f"Environment variable {name}={value!r} is not a boolean (use true or false).")


def env_list(name: str, default: list[str]) -> list[str]:
    """Read a comma-separated list, dropping blanks."""
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return list(default)
    return [part.strip() for part in value.split(",") if part.strip()]
