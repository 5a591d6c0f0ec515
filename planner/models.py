"""Planner models: saved designs (owned, versioned, shareable, with frozen prices) and API tokens."""

from __future__ import annotations

import hashlib
import secrets
import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone


class Design(models.Model):
    """A saved design: a DesignSpec owned by a user.

    `version` goes up by one on every change; an update must name the version it was based on
    (optimistic locking: a stale update is refused, nothing is lost). `prices` is the price list
    frozen when the design was saved or last re-priced, so a later price-list change never moves
    its quote silently. It can be shared read-only with named users or by a secret link.
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="designs")
    name = models.CharField(max_length=200)
    spec = models.JSONField(help_text="The DesignSpec (contract v1).")
    version = models.PositiveIntegerField(default=1)
    prices = models.JSONField(default=dict, help_text="The price list as it was when the design was last priced.")
    priced_at = models.DateTimeField(null=True, blank=True)
    shared_with = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="designs_shared_with_me")
    share_token = models.CharField(
        max_length=64, null=True, blank=True, unique=True, help_text="Secret link token; empty when not shared by link."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        indexes = [models.Index(fields=["owner", "-updated_at"])]

    def __str__(self) -> str:
        return f"{self.name} (v{self.version})"


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class ApiToken(models.Model):
    """A named API token for scripts. Only a hash is stored; the key is shown once, at creation."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, help_text="The key's first characters, to recognise it.")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="After this moment the token is refused; empty: never expires.")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @property
    def active(self) -> bool:
        return self.revoked_at is None and not self.expired

    @staticmethod
    def new_key() -> str:
        return "srp_" + secrets.token_urlsafe(32)

    @staticmethod
    def hash_key(key: str) -> str:
        return _hash(key)


class ExportJob(models.Model):
    """A rack sheet (PDF) or bill of materials (CSV, XLSX) of one version of a design, rendered by a
    Celery worker. The same format of the same design version is rendered once and reused."""

    class Format(models.TextChoices):
        PDF_A4 = "pdf-a4", "Rack sheet, PDF (A4)"
        PDF_LETTER = "pdf-letter", "Rack sheet, PDF (US Letter)"
        CSV = "csv", "Bill of materials, CSV"
        XLSX = "xlsx", "Bill of materials, XLSX"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    design = models.ForeignKey(Design, on_delete=models.CASCADE, related_name="exports")
    design_version = models.PositiveIntegerField()
    design_snapshot = models.JSONField(
        null=True,
        blank=True,
        help_text="The design at that version (name, spec, frozen prices): the export renders this, so a save made "
        "before a worker gets to the job does not change what the file of the earlier version holds.",
    )
    format = models.CharField(max_length=16, choices=Format.choices)
    reference = models.CharField(
        max_length=80,
        blank=True,
        default="",
        help_text="Design to price against: 'ex:<example slug>' or a saved design id; empty for none.",
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0, help_text="Percent done, for the browser's progress bar.")
    error = models.TextField(blank=True, help_text="Why it failed, in words for the user.")
    attempts = models.PositiveSmallIntegerField(default=0)
    enqueued_at = models.DateTimeField(
        null=True, blank=True, help_text="When the job was last handed to the broker; empty while the broker could not be reached."
    )
    file = models.FileField(upload_to="exports/%Y/%m/", blank=True)
    size_bytes = models.PositiveIntegerField(default=0)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["design", "design_version", "format", "reference"], name="one_export_per_design_version_format_reference"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_format_display()} of {self.design} v{self.design_version}: {self.status}"

    @property
    def filename(self) -> str:
        ext = {"pdf-a4": "pdf", "pdf-letter": "pdf", "csv": "csv", "xlsx": "xlsx"}[self.format]
        name = (self.design_snapshot or {}).get("name") or self.design.name  # the name at that version
        safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in name)[:60].strip("-") or "design"
        suffix = "-bom" if self.format in ("csv", "xlsx") else ("-rack-sheet-a4" if self.format == "pdf-a4" else "-rack-sheet-letter")
        return f"{safe}-v{self.design_version}{suffix}.{ext}"


class Calibration(models.Model):
    """A site's own model of one brick template, fitted from its obdfilter-survey and/or IOR output.

    Figures per brick: `backend_*_gbps` (obdfilter-survey peak behind one OSS), `end_to_end_*_gbps`
    (IOR maximum divided by the bricks it ran against) and `efficiency_*` (their ratio). A
    DesignSpec names it with `"calibration": <id>` to use these figures for that template's bricks.
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calibrations")
    name = models.CharField(max_length=200)
    brick_template = models.SlugField(max_length=80)
    obdfilter_name = models.CharField(max_length=200, blank=True)
    obdfilter_text = models.TextField(blank=True)
    ior_name = models.CharField(max_length=200, blank=True)
    ior_text = models.TextField(blank=True)
    ior_bricks = models.PositiveIntegerField(default=1, help_text="Bricks (OSS) of the file system IOR ran against.")
    parsed = models.JSONField(default=dict)
    fit = models.JSONField(default=dict)
    backend_read_gbps = models.FloatField(null=True, blank=True)
    backend_write_gbps = models.FloatField(null=True, blank=True)
    end_to_end_read_gbps = models.FloatField(null=True, blank=True)
    end_to_end_write_gbps = models.FloatField(null=True, blank=True)
    efficiency_read = models.FloatField(null=True, blank=True)
    efficiency_write = models.FloatField(null=True, blank=True)
    backend_osts = models.PositiveIntegerField(null=True, blank=True, help_text="OST count whose obdfilter-survey sweep gave the back end.")
    notes = models.JSONField(default=list)
    refusals = models.JSONField(default=list, help_text="What was refused and why: read before the notes.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.brick_template})"

    @property
    def usable(self) -> bool:
        """Whether anything was measured that a design can use (a back end or an end-to-end figure)."""
        return any(getattr(self, f) for f in ("backend_read_gbps", "backend_write_gbps", "end_to_end_read_gbps", "end_to_end_write_gbps"))


class SolveJob(models.Model):
    """A design-to-target search too large to answer within a web request, run by a Celery worker.
    Its id is a random UUID: whoever asked (signed in or not) polls it by id."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    request = models.JSONField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    chunks_total = models.PositiveIntegerField(default=1, help_text="Parts the search was split into (a Celery group).")
    chunks_done = models.PositiveIntegerField(default=0)
    enqueued_at = models.DateTimeField(
        null=True, blank=True, help_text="When the job was last handed to the broker; empty while the broker could not be reached."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]


class SolveChunk(models.Model):
    """One part of a large search, run as one task of a Celery group: a range of the job's brick options.
    Its partial answer (feasible count, best reachable figures, cheapest candidates and frontier below a
    price bound, see `planner.engine.solver.Partial`) is stored here; the last part to finish merges them."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    job = models.ForeignKey(SolveJob, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    options = models.JSONField(help_text="The part's brick options: [option index, described option] pairs.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    partial = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["job", "index"]
        constraints = [models.UniqueConstraint(fields=["job", "index"], name="solve_chunk_unique_index")]


class Plan(models.Model):
    """A capacity plan over years: a demand forecast and purchase phases (the plan spec, `body`), owned by a user.

    Like Design: `version` goes up by one on every change and an update must name the version it was based
    on (a stale update is refused, nothing is lost); it can be shared read-only with named users or by a
    secret link. The figures (supply against demand per year, run-outs, costs, proposals) are computed from
    the body by `planner.services.plans.plan_timeline`, never stored.
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="plans")
    name = models.CharField(max_length=200)
    body = models.JSONField(help_text="The plan spec: start year, demand, phases, settings.")
    version = models.PositiveIntegerField(default=1)
    shared_with = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="plans_shared_with_me")
    share_token = models.CharField(
        max_length=64, null=True, blank=True, unique=True, help_text="Secret link token; empty when not shared by link."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        indexes = [models.Index(fields=["owner", "-updated_at"])]

    def __str__(self) -> str:
        return f"{self.name} (v{self.version})"
