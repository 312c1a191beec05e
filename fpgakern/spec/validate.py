"""One kernel spec into a Kernel: a register kernel's (``control: auto_restart``) by
:mod:`fpgakern.spec.registers`, every other kind's by :mod:`fpgakern.spec.schema`."""

from __future__ import annotations

from typing import Any

from fpgakern.errors import SpecError
from fpgakern.ir.kernel import Kernel
from fpgakern.spec import registers, schema
from fpgakern.spec.yamlpos import Located

# What a register kernel's spec must say (its inputs are [], its scalars optional).
_REGISTER_KEYS = ("kernel", "doc", "outputs", "dtypes")


def validate(doc: Located, category: str, defaults: dict[str, Any] | None = None,
             category_doc: Located | None = None) -> Kernel:
    """Validate one kernel spec (merged over its category's defaults) into a Kernel."""
    data = doc.value
    if not isinstance(data, dict) or data.get("control") != "auto_restart":
        return schema.validate(doc, category, defaults, category_doc)
    schema.check_keys(doc, data, schema.FIELDS)
    schema.check_category(doc, category)
    merged = {**(defaults or {}), **data}
    for key in _REGISTER_KEYS:
        if key not in merged:
            raise SpecError(doc.file, 1, key, "missing required key")
    return registers.registers_kernel(doc, category, merged,
                                      schema.source_of(doc, data, category_doc))
