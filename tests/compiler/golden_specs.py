"""The fused specs the backend writes for a few models, checked in
(tests/compiler/golden/<model>.<target>.yaml: each kernel's spec, in graph order).

Regenerate them, after a change to the specs the backend writes that you mean, with::

    python tests/compiler/golden_specs.py

and review ``git diff tests/compiler/golden``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))

from models import D, MlpBlock, aten_graph  # noqa: E402

from fpgakern.compiler import fusion  # noqa: E402
from fpgakern.compiler.build import Validator  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden"
COMMAND = "python tests/compiler/golden_specs.py"


def _mlp() -> tuple[Callable[..., torch.Tensor], list[torch.Tensor]]:
    torch.manual_seed(0)
    return MlpBlock().eval(), [torch.randn(8, D)]


def _rms_norm() -> tuple[Callable[..., torch.Tensor], list[torch.Tensor]]:
    weight = torch.ones(16)
    return (lambda x: F.rms_norm(torch.relu(x), [16], weight)), [torch.randn(4, 16)]


def _chain() -> tuple[Callable[..., torch.Tensor], list[torch.Tensor]]:
    return (lambda a, b: (torch.tanh(a) * b - 2.0).sum()), [torch.randn(5, 7),
                                                          torch.randn(5, 7)]


MODELS = {"mlp_block": _mlp, "rms_norm": _rms_norm, "chain": _chain}
CASES = [("mlp_block", "sw_emu"), ("mlp_block", "hw_emu"), ("rms_norm", "sw_emu"),
         ("chain", "sw_emu")]


def render(model: str, target: str) -> str:
    fn, inputs = MODELS[model]()
    validator = Validator(target, 4)
    try:
        plan = fusion.plan(aten_graph(fn, *inputs), validator)
    finally:
        validator.close()
    return "---\n".join(s.text for s in plan.specs)


def path(model: str, target: str) -> Path:
    return GOLDEN / f"{model}.{target}.yaml"


if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for model, target in CASES:
        path(model, target).write_text(render(model, target))
        print(path(model, target))
