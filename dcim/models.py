"""DCIM connections and pushes (see dcim/push.py).

A DcimConnection is one user's access to a Nautobot or NetBox instance: its URL, its API token
(encrypted at rest with dcim/crypto.py, never shown again: only its last four characters), and
where planned racks go (NetBox site or Nautobot location, optional tenant). A DcimPush is one
design version sent (or dry-run) through a connection, run by a Celery job on the exports queue;
its `report` lists, per object, what the DCIM answered.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.db import models

from . import crypto

V1_TOKEN = re.compile(r"^[0-9a-fA-F]{40}$")
V2_TOKEN = re.compile(r"^nbt_[A-Za-z0-9]+\.[A-Za-z0-9_-]+$")


def detect_token_version(token: str) -> str:
    """NetBox token version from its form: `nbt_<key>.<secret>` is v2, 40 hex characters is v1; else ""."""
    if V2_TOKEN.match(token or ""):
        return "v2"
    if V1_TOKEN.match(token or ""):
        return "v1"
    return ""


class DcimConnection(models.Model):
    """A user's connection to a Nautobot or NetBox instance. The token is stored encrypted."""

    class Kind(models.TextChoices):
        NAUTOBOT = "nautobot", "Nautobot"
        NETBOX = "netbox", "NetBox"

    class TokenVersion(models.TextChoices):
        AUTO = "", "Detected from the token"
        V1 = "v1", "v1: Authorization: Token <40 hex>"
        V2 = "v2", "v2: Authorization: Bearer nbt_<key>.<token>"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="dcim_connections")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    base_url = models.URLField(max_length=300, help_text="The DCIM's address, e.g. https://nautobot.example.org")
    token_encrypted = models.TextField(blank=True, default="", editable=False)
    token_last4 = models.CharField(max_length=4, blank=True, default="", editable=False)
    token_version = models.CharField(max_length=2, blank=True, default="", choices=TokenVersion.choices)
    site = models.CharField(
        max_length=100, help_text="Where the racks go: the NetBox site's or the Nautobot location's name (it must exist)."
    )
    tenant = models.CharField(max_length=100, blank=True, default="", help_text="Optional tenant name (it must exist).")
    verify_tls = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="dcim_connection_unique_name_per_owner")]

    def __str__(self):
        return f"{self.name} ({self.get_kind_display()})"

    def set_token(self, token: str) -> None:
        """Store `token` encrypted; keep only its last four characters in clear."""
        self.token_encrypted = crypto.encrypt(token)
        self.token_last4 = token[-4:]

    def get_token(self) -> str:
        """The token in clear, for the HTTP client only (raises crypto.TokenUnreadable)."""
        return crypto.decrypt(self.token_encrypted) if self.token_encrypted else ""

    @property
    def effective_token_version(self) -> str:
        """v1 or v2 for NetBox: as chosen, else detected from the token's form (v1 when unknown)."""
        if self.token_version:
            return self.token_version
        try:
            return detect_token_version(self.get_token()) or "v1"
        except crypto.TokenUnreadable:
            return "v1"


class DcimPush(models.Model):
    """One design version pushed (or dry-run) through a connection; progress and report are saved as it runs."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="dcim_pushes")
    connection = models.ForeignKey(DcimConnection, on_delete=models.CASCADE, related_name="pushes")
    design = models.ForeignKey("planner.Design", on_delete=models.CASCADE, related_name="dcim_pushes")
    design_version = models.PositiveIntegerField()
    dry_run = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    progress_step = models.CharField(max_length=200, blank=True, default="")
    report = models.JSONField(
        default=list, blank=True, help_text="Per object: kind, name, action (create/update/unchanged/failed/skipped), DCIM's answer."
    )
    error = models.TextField(blank=True, default="")
    enqueued_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "-created_at"])]

    def __str__(self):
        kind = "dry run" if self.dry_run else "push"
        return f"{kind} of design {self.design_id} v{self.design_version} to {self.connection}: {self.status}"
