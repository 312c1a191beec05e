"""Small models the compiler tests compile, and their aten graphs as the backend sees
them (captured through aot_autograd, as torch.compile hands them over)."""

from __future__ import annotations

from typing import Any

import torch
from torch import fx, nn
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

D = 64


class MlpBlock(nn.Module):
    """An MLP block's pointwise part around a Linear: silu, bias add, residual add,
    relu, layer_norm, then a sum."""

    def __init__(self, d: int = D) -> None:
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.bias = nn.Parameter(torch.randn(d))
        self.ln = nn.LayerNorm(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        h = h * torch.sigmoid(h)
        h = h + self.bias
        h = torch.relu(h + x)
        h = self.ln(h)
        return h.sum()


def aten_graph(fn: Any, *inputs: torch.Tensor) -> fx.GraphModule:
    """The forward aten graph torch.compile gives a backend for ``fn(*inputs)``."""
    graphs: list[fx.GraphModule] = []

    def capture(gm: fx.GraphModule, example: list[Any]) -> Any:
        graphs.append(gm)
        return make_boxed_func(gm.forward)

    torch._dynamo.reset()
    with torch.no_grad():
        torch.compile(fn, backend=aot_autograd(fw_compiler=capture), dynamic=False)(*inputs)
    assert len(graphs) == 1, f"expected one graph, got {len(graphs)}"
    return graphs[0]


class Mlp(nn.Module):
    """A transformer's MLP: Linear -> GELU -> Linear, plus the residual (issue 30's
    must-show: both Linears on the matrix kernels, the weights kept on the device)."""

    def __init__(self, d: int = 32, hidden: int = 64) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.fc2(nn.functional.gelu(self.fc1(x)))
