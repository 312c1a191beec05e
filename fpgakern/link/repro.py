"""Reproducible builds: the per-build fields of .xo and .xclbin files, derived not drawn.

Real tools make some fields unique per run: xclbinutil writes 16 random bytes as the
xclbin UUID, ``time()`` as ``m_uniqueId`` and ``m_timeStamp``; zip archives record file
times. fpgakern derives the UUID and ``m_uniqueId`` from a hash of the xclbin's content
and takes times from an explicit option, else ``SOURCE_DATE_EPOCH`` (the
reproducible-builds.org convention), else the release date of this fpgakern
(:data:`RELEASE_EPOCH`), so the same inputs give byte-identical files whose dates are
still true statements: no later than the tool that made them. (An m_timeStamp of 0 made
``file`` report every .xclbin as created in 1970.)
"""

from __future__ import annotations

import hashlib
import os
import time
import uuid as uuid_mod

from fpgakern.errors import UsageError

ZIP_EPOCH = 315532800  # 1980-01-01T00:00:00Z, the earliest time a zip entry can record
ZIP_END = 4354819198  # 2107-12-31T23:59:58Z, the latest (DOS dates count years to 127)
# 2026-11-24T00:00:00Z, the release of fpgakern 0.1.0: the default time of every .xo and
# .xclbin. Move it with __version__ (tests check it is the release's day, not 1970).
RELEASE_DATE = "2026-11-24"
RELEASE_EPOCH = 1795478400


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
    SOURCE_DATE_EPOCH, else the release date of this fpgakern (RELEASE_EPOCH)."""
    if explicit == "now":
        return int(time.time())
    if explicit is not None:
        try:
            return int(explicit)
        except ValueError:
            raise UsageError(f"--timestamp {explicit!r}: give seconds since 1970 or 'now'") \
                from None
    from_env = source_date_epoch()
    return RELEASE_EPOCH if from_env is None else from_env  # SOURCE_DATE_EPOCH=0 is valid


def zip_date_time(epoch: int | None = None) -> tuple[int, int, int, int, int, int]:
    """A zip entry time: ``epoch``, else :func:`build_time`'s, clamped to the zip era
    (UTC; zip times have no zone, and UTC keeps them the same on every machine)."""
    seconds = min(max(ZIP_EPOCH, epoch if epoch is not None else build_time()), ZIP_END)
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
