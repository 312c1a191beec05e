"""YAML loading that remembers where every key and value was written.

PyYAML's node tree carries line numbers; this module turns it into plain Python values
plus a map from key paths to lines, so that every validation error can name its line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from fpgakern.errors import SpecError

KeyPath = tuple[str | int, ...]


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
    """Load ``file``; YAML syntax errors and duplicate keys become SpecErrors."""
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as err:
        raise SpecError(file, None, None, f"cannot read: {err.strerror}") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark else None
        raise SpecError(file, line, None, f"invalid YAML: {err.problem or err}") from None
    doc = Located(file, None)
    if node is None:
        doc.value = {}
        doc.lines[()] = 1
        return doc
    doc.value = _convert(node, (), doc)
    return doc


def _convert(node: yaml.Node, path: KeyPath, doc: Located) -> Any:
    doc.lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                line = key_node.start_mark.line + 1
                raise SpecError(doc.file, line, None, "keys must be plain names")
            key = str(key_node.value)
            if key in out:
                raise SpecError(doc.file, key_node.start_mark.line + 1, key, "duplicate key")
            child = (*path, key)
            out[key] = _convert(value_node, child, doc)
            doc.lines[child] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_convert(item, (*path, i), doc) for i, item in enumerate(node.value)]
    return _scalar(node)


def _scalar(node: yaml.ScalarNode) -> Any:
    """Resolve a scalar with YAML's safe rules (ints, floats, bools, null, strings)."""
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_object(node, deep=True)
    finally:
        loader.dispose()
