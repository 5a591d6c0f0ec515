"""The catalogue's "Import device types" page (staff): upload device-type files in the community
library format (or a zip of them), see the preview (kind given or guessed with its reason, figures
with their notes, missing figures), choose the kinds, confirm.

Server-rendered, no script. Between the preview and the confirmation the uploads wait in the cache
(Redis in production, so any web process can confirm) for IMPORT_TTL seconds, one preview per user,
with a random token the confirmation must bring back; the confirmation reads and checks them again (the catalogue may have changed)."""

from __future__ import annotations

import secrets

from django.contrib.auth.views import redirect_to_login
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.shortcuts import render
from django.urls import path
from django.views.decorators.http import require_http_methods

from . import library
from .catalogue_import import KINDS, ImportRefused, import_device_types

IMPORT_TTL = 30 * 60
KIND_LABELS = {
    "server": "Server",
    "switch": "Switch",
    "raid-head": "Enclosure: RAID head",
    "expansion": "Enclosure: expansion",
    "jbod": "Enclosure: JBOD",
    "iscsi-array": "Enclosure: iSCSI SAN array",
    "fc-array": "Enclosure: Fibre Channel SAN array",
}


def _cache_key(user) -> str:
    """One pending preview per user (a new preview replaces it): the cache holds at most 4 MiB per staff user."""
    return f"dcim:import:{user.pk}"


def _pending(user, token: str):
    """The files of the user's pending preview, if `token` is its token."""
    stored = cache.get(_cache_key(user))
    if not stored or not token or not secrets.compare_digest(stored[0].encode(), token.encode()):
        return None
    return stored[1]


def _uploads(request) -> tuple[list[tuple[str, bytes]], list[library.LibraryError]]:
    files, errors = [], []
    uploads = request.FILES.getlist("files")
    if not uploads:
        errors.append(library.LibraryError("files", "", "choose one or more .yaml/.yml files, or a .zip of them"))
    if len(uploads) > 50:
        errors.append(library.LibraryError("files", "", f"{len(uploads)} files; upload at most 50 at once (or one zip)"))
        return [], errors
    for upload in uploads:
        limit = library.MAX_ZIP_BYTES if upload.name.lower().endswith(".zip") else library.MAX_FILE_BYTES
        if upload.size > limit:
            errors.append(library.LibraryError(upload.name, "", f"is {upload.size} bytes; the limit is {limit} bytes"))
            continue
        files.append((upload.name, upload.read(limit + 1)))
    return files, errors


def _run(files, kinds, *, dry_run: bool) -> tuple[list[dict], list[library.LibraryError]]:
    result = library.read_files(files)
    try:
        return import_device_types(result=result, kinds=kinds, dry_run=dry_run), []
    except ImportRefused as exc:
        return [], exc.errors


@require_http_methods(["GET", "POST"])
def import_device_types_page(request):
    """Upload -> preview (dry run) -> confirm (import)."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not request.user.is_staff:
        raise PermissionDenied("Only staff may import device types into the catalogue.")
    context = {"kinds": KIND_LABELS, "limits": library, "step": "upload", "errors": [], "parts": []}
    status = 200
    if request.method == "POST" and request.POST.get("action") == "confirm":
        token = request.POST.get("token", "")
        files = _pending(request.user, token[:64])
        if files is None:
            context["errors"] = [
                library.LibraryError("upload", "", "this preview has expired or was already imported; upload the files again")
            ]
            status = 400
        else:
            kinds = {}
            for key, value in request.POST.items():
                if key.startswith("kind:") and value in KINDS:
                    kinds[key.removeprefix("kind:")] = value
            parts, errors = _run(files, kinds, dry_run=False)
            if errors:
                context.update(errors=errors, step="upload")
                status = 400
            else:
                cache.delete(_cache_key(request.user))
                context.update(parts=parts, step="done")
    elif request.method == "POST":
        files, errors = _uploads(request)
        kind = request.POST.get("kind", "")
        if kind and kind not in KINDS:
            errors.append(library.LibraryError("kind", "", f"'{kind[:40]}' is not a kind"))
        if not errors:
            result = library.read_files(files)
            kinds = {dt.file: kind for dt in result.device_types} if kind else {}
            try:
                parts = import_device_types(result=result, kinds=kinds, dry_run=True)
            except ImportRefused as exc:
                errors = exc.errors
        if errors:
            context.update(errors=errors)
            status = 400
        else:
            token = secrets.token_hex(16)
            cache.set(_cache_key(request.user), (token, files), IMPORT_TTL)
            context.update(parts=parts, step="preview", token=token)
    return render(request, "dcim/import.html", context, status=status)


urlpatterns = [path("catalogue/import/", import_device_types_page, name="dcim-import")]
