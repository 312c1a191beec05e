"""Reproducible builds: the per-build fields of .xo and .xclbin files, derived not drawn.

Real tools make some fields unique per run: xclbinutil writes 16 random bytes as the
xclbin UUID, ``time()`` as ``m_uniqueId`` and ``m_timeStamp``; zip archives record file
times. fpgakern derives the UUID and ``m_uniqueId`` from a hash of the xclbin's content
and takes times from ``SOURCE_DATE_EPOCH`` (the reproducible-builds.org convention) or an
explicit option, else writes none (0 in the xclbin, 1980-01-01 in the zip), so the same
inputs give byte-identical files.
"""

from __future__ import annotations

import hashlib
import os
import time
import uuid as uuid_mod

from fpgakern.errors import UsageError

ZIP_EPOCH = 315532800  # 1980-01-01T00:00:00Z, the earliest time a zip entry can record


def source_date_epoch() -> int | None:
    raw = os.environ.get("SOURCE_DATE_EPOCH")
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise UsageError(f"SOURCE_DATE_EPOCH={raw!r} is not an integer") from None
    if value < 0:
        raise UsageError(f"SOURCE_DATE_EPOCH={raw!r} is negative")
    return value


def build_time(explicit: int | str | None = None) -> int:
    """Seconds since the epoch to record: ``explicit`` ("now" or seconds), else
    SOURCE_DATE_EPOCH, else 0 (not recorded)."""
    if explicit == "now":
        return int(time.time())
    if explicit is not None:
        try:
            return int(explicit)
        except ValueError:
            raise UsageError(f"--timestamp {explicit!r}: give seconds since 1970 or 'now'") \
                from None
    return source_date_epoch() or 0


def zip_date_time(epoch: int | None = None) -> tuple[int, int, int, int, int, int]:
    """A zip entry time: ``epoch`` or SOURCE_DATE_EPOCH, clamped to the zip era (UTC)."""
    seconds = max(ZIP_EPOCH, epoch if epoch is not None else source_date_epoch() or 0)
    t = time.gmtime(seconds)
    return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec & ~1)


def content_uuid(*parts: bytes) -> uuid_mod.UUID:
    """A UUID (RFC 9562 version 8, "custom") from the SHA-256 of ``parts``."""
    digest = hashlib.sha256(b"fpgakern-xclbin-uuid\0" + b"\0".join(parts)).digest()
    raw = bytearray(digest[:16])
    raw[6] = (raw[6] & 0x0F) | 0x80
    raw[8] = (raw[8] & 0x3F) | 0x80
    return uuid_mod.UUID(bytes=bytes(raw))


def unique_id(value: uuid_mod.UUID) -> int:
    """``m_uniqueId`` from the xclbin UUID, so that both change together."""
    return int.from_bytes(hashlib.sha256(value.bytes).digest()[:8], "little")
