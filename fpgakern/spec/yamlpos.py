"""YAML loading that remembers where every key and value was written, and that no input
can crash, hang or exhaust.

PyYAML's event stream carries line numbers; this module composes it into plain Python
values plus a map from key paths to lines, so that every validation error can name its
line. It composes the events itself (rather than using ``yaml.compose``) so that it can
refuse, as each event arrives, what a spec never needs and an attacker could abuse:

* files that are not regular files (FIFOs block, ``/dev/zero`` never ends) or are larger
  than ``MAX_FILE_BYTES``; bytes that are not UTF-8;
* aliases and anchors (``&a`` / ``*a``: a "billion laughs" document expands
  exponentially) and explicit tags (``!foo``, ``!!python/object``);
* more than ``MAX_NODES`` values or nesting deeper than ``MAX_DEPTH`` (the recursion
  below stays shallow);
* numbers longer than ``MAX_NUMBER_CHARS`` (int() of 5000 digits raises, and a huge
  sexagesimal ``1:2:3:...`` takes quadratic time);
* unprintable characters in strings (NUL, ANSI escapes, bidi overrides) except tab and
  newline: spec text ends up in generated C++ and on the terminal.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from fpgakern.errors import SpecError, printable, shorten

KeyPath = tuple[str | int, ...]

MAX_FILE_BYTES = 1 << 20  # 1 MiB; real specs are a few hundred bytes
MAX_NODES = 10_000
MAX_DEPTH = 16
MAX_NUMBER_CHARS = 100

# libyaml scans a 1 MiB file in milliseconds; the pure-Python parser (the fallback when
# PyYAML was built without libyaml) needs about a second.
_Parser: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_RESOLVER = yaml.resolver.Resolver()
_CONSTRUCTED = {  # the scalar tags turned into Python values; every other one stays a string
    "tag:yaml.org,2002:null", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
}
_NUMBERS = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}
_FILE_KINDS = (
    (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


@dataclass
class Located:
    """A loaded YAML document: its value and the line (1-based) of each key path."""

    file: Path
    value: Any
    lines: dict[KeyPath, int] = field(default_factory=dict)

    def line(self, *path: str | int) -> int | None:
        """Line of the deepest known prefix of ``path``, so a bad list item falls back to
        its list and a missing key to the document start."""
        for end in range(len(path), -1, -1):
            if path[:end] in self.lines:
                return self.lines[path[:end]]
        return None

    def error(self, key: str, message: str, *path: str | int) -> SpecError:
        return SpecError(self.file, self.line(*(path or (key,))), key, message)


def load(file: Path) -> Located:
    """Load ``file``; every problem with it (unreadable, not YAML, too big, aliases, tags,
    bad numbers or characters) becomes a SpecError."""
    text = read_text(file)
    doc = Located(file, None)
    parser = None
    try:
        parser = _Parser(text)  # the pure-Python reader checks characters right here
        doc.value = _Composer(parser, doc).document()
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark else None
        problem = (err.problem or str(err)).strip()
        raise SpecError(file, line, None, f"invalid YAML: {problem}") from None
    except yaml.reader.ReaderError as err:
        line = text.count("\n", 0, err.position) + 1
        raise SpecError(file, line, None, f"invalid YAML: character U+{err.character:04X} "
                                          "is not allowed (control character)") from None
    except yaml.YAMLError as err:
        raise SpecError(file, None, None, f"invalid YAML: {str(err).strip()}") from None
    finally:
        if parser is not None:
            parser.dispose()
    return doc


def read_text(file: Path) -> str:
    """The UTF-8 text of ``file``, read only if it is a regular file of at most
    ``MAX_FILE_BYTES`` (a FIFO would block the build and ``/dev/zero`` never ends)."""
    try:
        _check_regular(file, os.stat(file))
        # O_NONBLOCK: should the file be swapped for a FIFO after the stat, open() must
        # not wait for a writer; fstat below then refuses it.
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
        with os.fdopen(os.open(file, flags), "rb") as handle:
            _check_regular(file, os.fstat(handle.fileno()))
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        raise SpecError(file, None, None, f"cannot read: {_reason(file, err)}") from None
    if len(data) > MAX_FILE_BYTES:
        raise SpecError(file, None, None, _too_big())
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise SpecError(file, line, None, f"not UTF-8 text (byte 0x{data[err.start]:02X} at "
                                          f"offset {err.start})") from None


def _check_regular(file: Path, info: os.stat_result) -> None:
    for test, kind in _FILE_KINDS:
        if test(info.st_mode):
            raise SpecError(file, None, None, f"not a regular file ({kind})")
    if not stat.S_ISREG(info.st_mode):
        raise SpecError(file, None, None, "not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise SpecError(file, None, None, _too_big(info.st_size))


def _too_big(size: int | None = None) -> str:
    what = f"{size} bytes" if size is not None else "larger than that"
    return f"file is too large ({what}; a spec may be at most {MAX_FILE_BYTES} bytes, 1 MiB)"


def _reason(file: Path, err: OSError) -> str:
    if err.errno == errno.ELOOP:
        return "symbolic link loop (too many levels of symbolic links)"
    if err.errno == errno.ENOENT and os.path.islink(file):
        try:
            target = os.readlink(file)
        except OSError:
            return "dangling symbolic link"
        return f"dangling symbolic link (to {shorten(printable(target))!r})"
    return err.strerror or str(err)


class _Composer:
    """Turns parser events into values, recording lines, refusing what ``load`` lists."""

    def __init__(self, parser: Any, doc: Located) -> None:
        self.parser = parser
        self.doc = doc
        self.nodes = 0

    def document(self) -> Any:
        self.parser.get_event()  # StreamStart
        if self.parser.check_event(yaml.StreamEndEvent):  # an empty file
            self.doc.lines[()] = 1
            return {}
        self.parser.get_event()  # DocumentStart
        value = self.node((), 0)
        self.parser.get_event()  # DocumentEnd
        if not self.parser.check_event(yaml.StreamEndEvent):
            event = self.parser.peek_event()
            raise SpecError(self.doc.file, event.start_mark.line + 1, None,
                            "a spec is one YAML document; found a second one (---)")
        return value

    def node(self, path: KeyPath, depth: int) -> Any:
        event = self.parser.get_event()
        line = self._admit(event, path, depth)
        self.doc.lines[path] = line
        if isinstance(event, yaml.ScalarEvent):
            return self._scalar(event, path, line)
        if isinstance(event, yaml.SequenceStartEvent):
            items: list[Any] = []
            while not self.parser.check_event(yaml.SequenceEndEvent):
                items.append(self.node((*path, len(items)), depth + 1))
            self.parser.get_event()
            return items
        mapping: dict[str, Any] = {}
        while not self.parser.check_event(yaml.MappingEndEvent):
            key_event = self.parser.get_event()
            key_line = self._admit(key_event, path, depth + 1)
            if not isinstance(key_event, yaml.ScalarEvent):
                raise SpecError(self.doc.file, key_line, None, "keys must be plain names")
            key = key_event.value
            _check_characters(self.doc, key, path, key_line)
            if key in mapping:
                raise SpecError(self.doc.file, key_line, _key_name((*path, key)), "duplicate key")
            mapping[key] = self.node((*path, key), depth + 1)
            self.doc.lines[(*path, key)] = key_line
        self.parser.get_event()
        return mapping

    def _admit(self, event: Any, path: KeyPath, depth: int) -> int:
        """Count ``event`` as a node and refuse aliases, anchors, tags and excess; its line."""
        line: int = event.start_mark.line + 1
        where = (self.doc.file, line, _key_name(path))
        if isinstance(event, yaml.AliasEvent):
            raise SpecError(*where, "YAML aliases (*name) are not supported")
        if event.anchor is not None:
            raise SpecError(*where, "YAML anchors (&name) are not supported")
        if event.tag is not None:
            raise SpecError(*where, f"YAML tags are not supported (found "
                                    f"{shorten(printable(event.tag))!r})")
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise SpecError(*where, f"too many YAML values (more than {MAX_NODES})")
        if depth >= MAX_DEPTH:
            raise SpecError(*where, f"nested too deeply (more than {MAX_DEPTH} levels)")
        return line

    def _scalar(self, event: yaml.ScalarEvent, path: KeyPath, line: int) -> Any:
        """Resolve with YAML's safe rules: ints, floats, bools and null become Python
        values; everything else (timestamps included) stays the string as written."""
        text: str = event.value
        tag = _RESOLVER.resolve(yaml.ScalarNode, text, event.implicit)
        if tag not in _CONSTRUCTED:
            _check_characters(self.doc, text, path, line)
            return text
        if tag in _NUMBERS and len(text) > MAX_NUMBER_CHARS:
            raise SpecError(self.doc.file, line, _key_name(path),
                            f"number is {len(text)} characters long (at most "
                            f"{MAX_NUMBER_CHARS})")
        node = yaml.ScalarNode(tag, text)  # constructors read the value only, not the marks
        try:
            return yaml.SafeLoader.yaml_constructors[tag](_CONSTRUCTOR, node)
        except (ValueError, OverflowError, yaml.YAMLError):
            raise SpecError(self.doc.file, line, _key_name(path),
                            f"invalid number {shorten(printable(text))!r}") from None


_CONSTRUCTOR = yaml.SafeLoader("")


def _check_characters(doc: Located, text: str, path: KeyPath, line: int) -> None:
    if text.isprintable():
        return
    for char in text:
        if not char.isprintable() and char not in "\t\n":
            raise SpecError(doc.file, line, _key_name(path),
                            f"character U+{ord(char):04X} is not allowed (unprintable)")


def _key_name(path: KeyPath) -> str | None:
    """The dotted key a path names, for messages: ``scalars.alpha``; list indexes drop."""
    return ".".join(p for p in path if isinstance(p, str)) or None
