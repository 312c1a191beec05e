"""docs/compile.md's example: an MLP block compiled with backend="fpgakern".

    python docs/examples/compile_mlp.py              # sw_emu
    python docs/examples/compile_mlp.py hw_emu       # the kernels' RTL in Verilator
"""

import sys

import torch
from torch import nn

import fpgakern.compiler


class Block(nn.Module):  # an MLP block's pointwise part
    def __init__(self, d: int = 64) -> None:
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.bias = nn.Parameter(torch.randn(d))
        self.ln = nn.LayerNorm(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)  # a matrix product: the matrix_ops/linear kernel
        h = h * torch.sigmoid(h)  # silu
        h = torch.relu(h + self.bias + x)  # bias add, residual add, relu
        return self.ln(h).sum()


target = sys.argv[1] if len(sys.argv) > 1 else "sw_emu"
torch.manual_seed(0)
model = Block().eval()
run = torch.compile(model, backend="fpgakern", options={"target": target})
x = torch.randn(8, 64)
with torch.no_grad():
    run(x)
    y = run(x)
    eager = model(x)
print(fpgakern.compiler.last_report())
print(f"fpgakern {y.item():.6g}, eager {eager.item():.6g}, "
      f"difference {abs(y.item() - eager.item()):.3g}")
