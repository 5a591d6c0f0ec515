"""Encryption at rest of DCIM API tokens (Fernet: AES-128-CBC with HMAC-SHA256, from `cryptography`).

Keys:
- `DCIM_TOKEN_KEY` (environment or settings): one or more Fernet keys separated by commas, the first
  encrypts, all decrypt. Make one with
  `python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"`.
- Without it, a key is derived from `SECRET_KEY` with HKDF-SHA256 (info "dcim-token-v1"), so changing
  SECRET_KEY makes stored tokens unreadable unless DCIM_TOKEN_KEY is set.

Rotation: put the new key first in DCIM_TOKEN_KEY and keep the old one after it
(`DCIM_TOKEN_KEY=new,old`), restart, run
`python manage.py shell -c "from dcim.crypto import rotate_all; print(rotate_all())"` (re-encrypts every
stored token with the new key), then drop the old key. The SECRET_KEY-derived key is always tried last
for decryption, so moving from "no DCIM_TOKEN_KEY" to one works the same way.
"""

from __future__ import annotations

import base64
import os

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings


class TokenUnreadable(Exception):
    """The stored token cannot be decrypted with any configured key (key changed without rotation)."""


def _derived_key() -> bytes:
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"storage-rack-planner", info=b"dcim-token-v1")
    return base64.urlsafe_b64encode(hkdf.derive(settings.SECRET_KEY.encode()))


def _fernet() -> MultiFernet:
    configured = getattr(settings, "DCIM_TOKEN_KEY", None) or os.environ.get("DCIM_TOKEN_KEY", "")
    keys = [k.strip().encode() for k in configured.split(",") if k.strip()]
    keys.append(_derived_key())
    return MultiFernet([Fernet(k) for k in keys])


def encrypt(plain: str) -> str:
    """The token encrypted with the current key (text, safe to store)."""
    return _fernet().encrypt(plain.encode()).decode()


def decrypt(stored: str) -> str:
    """The token in clear, for sending to the DCIM only. Raises TokenUnreadable."""
    try:
        return _fernet().decrypt(stored.encode()).decode()
    except (InvalidToken, ValueError) as exc:
        raise TokenUnreadable(
            "The stored API token cannot be decrypted with the configured keys (DCIM_TOKEN_KEY or SECRET_KEY "
            "changed without rotation): enter the token again."
        ) from exc


def rotate_all() -> int:
    """Re-encrypt every stored connection token with the first key; returns how many were rewritten."""
    from .models import DcimConnection

    fernet = _fernet()
    count = 0
    for conn in DcimConnection.objects.exclude(token_encrypted=""):
        new = fernet.rotate(conn.token_encrypted.encode()).decode()
        DcimConnection.objects.filter(pk=conn.pk).update(token_encrypted=new)
        count += 1
    return count
