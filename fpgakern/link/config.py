"""v++-style link configuration files (``vitis-flow.md`` §3.2).

::

    [connectivity]
    nk=add_f32:4:add_f32_1.add_f32_2.add_f32_3.add_f32_4   # or , between names
    sp=add_f32_1.a:DDR[0]            # an argument or m_axi interface -> a bank (range)
    slr=add_f32_1:SLR0
    stream_connect=producer_1.out:consumer_1.in:32        # sc= is the short form

Sections other than ``[connectivity]`` (``[hls]``, ``[vivado]`` ...) are kept verbatim for
a real v++ and ignored by the open flow. Every error names ``file:line``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fpgakern.errors import UsageError, display_path

CONNECTIVITY = "connectivity"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SLR = re.compile(r"^SLR\d+$", re.IGNORECASE)


class ConfigError(UsageError):
    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Nk:
    kernel: str
    count: int
    names: tuple[str, ...]  # empty: the default names <kernel>_1 .. <kernel>_N
    where: str = ""

    @property
    def cu_names(self) -> tuple[str, ...]:
        return self.names or tuple(f"{self.kernel}_{i}" for i in range(1, self.count + 1))


@dataclass(frozen=True)
class Sp:
    cu: str
    port: str  # an argument name or an m_axi interface name
    memory: str  # as written: DDR[0], HBM[0:3], PLRAM3 ...
    where: str = ""


@dataclass(frozen=True)
class Slr:
    cu: str
    slr: str
    where: str = ""


@dataclass(frozen=True)
class StreamConnect:
    src_cu: str
    src_port: str
    dst_cu: str
    dst_port: str
    depth: int | None = None
    where: str = ""


@dataclass(frozen=True)
class LinkConfig:
    nk: tuple[Nk, ...] = ()
    sp: tuple[Sp, ...] = ()
    slr: tuple[Slr, ...] = ()
    stream_connect: tuple[StreamConnect, ...] = ()
    # (section, key, value) lines a real v++ reads and the open flow does not
    other: tuple[tuple[str, str, str], ...] = field(default=())

    def nk_for(self, kernel: str) -> Nk | None:
        return next((n for n in self.nk if n.kernel == kernel), None)

    def merged(self, later: LinkConfig) -> LinkConfig:
        """This config overridden by ``later``: per kernel nk, per CU port sp, per CU slr."""
        def keep(items: tuple, newer: tuple, key: Callable[[Any], object]) -> tuple:
            replaced = {key(x) for x in newer}
            return tuple(x for x in items if key(x) not in replaced) + newer

        return LinkConfig(
            keep(self.nk, later.nk, lambda n: n.kernel),
            keep(self.sp, later.sp, lambda s: (s.cu, s.port.lower())),
            keep(self.slr, later.slr, lambda s: s.cu),
            self.stream_connect + later.stream_connect,
            self.other + later.other,
        )

    def to_text(self) -> str:
        """The config as v++ reads it (CU names joined by ``,``, the current syntax)."""
        # top-level keys (platform=, ...) must precede the first section header
        lines = [f"{key}={value}" for sec, key, value in self.other if not sec]
        lines.append(f"[{CONNECTIVITY}]")
        for n in self.nk:
            names = f":{','.join(n.names)}" if n.names else ""
            lines.append(f"nk={n.kernel}:{n.count}{names}")
        lines += [f"sp={s.cu}.{s.port}:{s.memory}" for s in self.sp]
        lines += [f"slr={s.cu}:{s.slr}" for s in self.slr]
        for c in self.stream_connect:
            depth = f":{c.depth}" if c.depth is not None else ""
            lines.append(f"stream_connect={c.src_cu}.{c.src_port}:{c.dst_cu}.{c.dst_port}{depth}")
        section = CONNECTIVITY
        for sec, key, value in self.other:
            if not sec:
                continue
            if sec != section:
                lines += ["", f"[{sec}]"]
                section = sec
            lines.append(f"{key}={value}")
        return "\n".join(lines) + "\n"


def _cu_port(text: str, where: str, what: str) -> tuple[str, str]:
    cu, dot, port = (part.strip() for part in text.partition("."))
    if not dot or not _NAME.match(cu) or not port:
        raise ConfigError(where, f"{what} {text!r}: expected <cu>.<port>")
    return cu, port


def _parse_nk(value: str, where: str) -> Nk:
    parts = value.split(":")
    if len(parts) not in (2, 3) or not _NAME.match(parts[0]):
        raise ConfigError(where, f"nk={value}: expected <kernel>:<count>[:<cu1>,<cu2>...]")
    kernel, count_text = parts[0], parts[1]
    if not count_text.isdigit() or int(count_text) < 1:
        raise ConfigError(where, f"nk={value}: the CU count {count_text!r} must be a "
                          "positive integer")
    count = int(count_text)
    names: tuple[str, ...] = ()
    if len(parts) == 3:
        # Older v++ separated CU names with '.', current releases with ','.
        names = tuple(n.strip() for n in re.split(r"[.,]", parts[2]))
        bad = [n for n in names if not _NAME.match(n)]
        if bad:
            raise ConfigError(where, f"nk={value}: {bad[0]!r} is not a valid CU name")
        if len(names) != count:
            raise ConfigError(where, f"nk={value}: {count} CUs but {len(names)} names")
        if len(set(names)) != len(names):
            raise ConfigError(where, f"nk={value}: CU names repeat")
    return Nk(kernel, count, names, where)


def _parse_connectivity(key: str, value: str, where: str) -> Nk | Sp | Slr | StreamConnect:
    if key == "nk":
        return _parse_nk(value, where)
    if key == "sp":
        # <cu>.<port> holds no ':', the memory may (HBM[0:3]): split at the first one
        target, colon, memory = value.partition(":")
        if not colon or not memory.strip():
            raise ConfigError(where, f"sp={value}: expected <cu>.<port>:<memory>")
        cu, port = _cu_port(target, where, "sp")
        return Sp(cu, port, memory.strip(), where)
    if key == "slr":
        cu, colon, slr = value.partition(":")
        if not colon or not _NAME.match(cu) or not _SLR.match(slr):
            raise ConfigError(where, f"slr={value}: expected <cu>:SLR<n>")
        return Slr(cu, slr.upper(), where)
    if key in ("stream_connect", "sc"):
        parts = value.split(":")
        if len(parts) not in (2, 3):
            raise ConfigError(where, f"{key}={value}: expected "
                              "<cu>.<port>:<cu>.<port>[:<depth>]")
        src, dst = (_cu_port(p, where, key) for p in parts[:2])
        depth = None
        if len(parts) == 3:
            if not parts[2].isdigit():
                raise ConfigError(where, f"{key}={value}: FIFO depth {parts[2]!r} is not "
                                  "a number")
            depth = int(parts[2])
        return StreamConnect(*src, *dst, depth, where)
    raise ConfigError(where, f"unknown [connectivity] key {key!r} "
                      "(fpgakern reads nk, sp, slr, stream_connect, sc)")


def parse(text: str, file: str = "<config>") -> LinkConfig:
    items: dict[str, list] = {"nk": [], "sp": [], "slr": [], "sc": []}
    other: list[tuple[str, str, str]] = []
    section = ""
    for number, raw in enumerate(text.splitlines(), 1):
        where = f"{file}:{number}"
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                raise ConfigError(where, f"malformed section header {line!r}")
            section = line[1:-1].strip().lower()
            continue
        key, eq, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key:
            raise ConfigError(where, f"expected key=value, found {line!r}")
        if section != CONNECTIVITY:
            other.append((section, key, value))
            continue
        if not value:
            raise ConfigError(where, f"{key}= has no value")
        entry = _parse_connectivity(key, value, where)
        kind = {Nk: "nk", Sp: "sp", Slr: "slr", StreamConnect: "sc"}[type(entry)]
        items[kind].append(entry)
    seen: dict[str, str] = {}
    for n in items["nk"]:
        if n.kernel in seen:
            raise ConfigError(n.where, f"nk for {n.kernel} repeats (first at {seen[n.kernel]})")
        seen[n.kernel] = n.where
    return LinkConfig(tuple(items["nk"]), tuple(items["sp"]), tuple(items["slr"]),
                      tuple(items["sc"]), tuple(other))


def load(path: Path) -> LinkConfig:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise UsageError(f"{display_path(path)}: cannot read link config ({err.strerror})") \
            from None
    return parse(text, display_path(path))

