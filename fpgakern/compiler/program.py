"""Run a partitioned graph: fused kernels on the device, every other node in torch.

Values between two kernels stay on the device (``DeviceArray``s); a tensor goes to the
device once per call when a kernel reads it (a parameter once for as long as it is not
changed: its version counter says), and comes back only when torch, or the caller,
needs it. The device counts each copy; ``last_call`` keeps the counts of the last call.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import fx

from fpgakern.compiler.specs import FusedSpec
from fpgakern.compiler.support import MatrixTerm
from fpgakern.ir.kernel import Kernel
from fpgakern.runtime import matrix
from fpgakern.runtime.device import Device, KernelHandle
from fpgakern.runtime.resident import DeviceArray, Transfers
from fpgakern.runtime.torch_ops import plus_zero


@dataclass
class CallStats:
    """One call of a compiled graph: kernel runs and host<->device traffic."""

    kernel_calls: int = 0
    transfers: Transfers = field(default_factory=Transfers)
    cycles: int | None = None  # hw_emu: the kernels' cycles, summed


class _Resident:
    """A tensor's copy on the device, kept while the tensor is unchanged."""

    def __init__(self, tensor: torch.Tensor, array: DeviceArray) -> None:
        self.tensor = weakref.ref(tensor)
        self.version = tensor._version
        self.array = array

    def holds(self, tensor: torch.Tensor) -> bool:
        return self.tensor() is tensor and tensor._version == self.version


class CompiledGraph:
    """The callable torch runs for one graph (aot_autograd's boxed calling convention:
    a list of inputs in, a tuple of outputs back)."""

    _boxed_call = True

    def __init__(self, gm: fx.GraphModule, specs: list[FusedSpec],
                 handles: dict[str, KernelHandle], device: Device,
                 matrices: dict[fx.Node, tuple[MatrixTerm, KernelHandle]] | None = None
                 ) -> None:
        self.gm = gm
        self.device = device
        # Matrix nodes run on library contraction kernels (support.lower_matrix).
        self.matrices = dict(matrices or {})
        self._zeros: dict[tuple[int, ...], DeviceArray] = {}  # zero operands, kept
        # Only the kernels that run: a spec without a handle stays in torch, node by node.
        self.kernels = {s.nodes[-1]: (s, handles[s.name]) for s in specs if s.name in handles}
        self.inside = {n for s, _ in self.kernels.values() for n in s.nodes[:-1]}
        # What a matrix kernel reads through or computes itself (a Linear's t node, the
        # Linear under a fused relu): not run in torch when only such kernels use it.
        absorbed = {n: m for m, _ in self.matrices.values() for n in (*m.absorbed, m.node)}
        for term, _ in self.matrices.values():
            for node in term.absorbed:
                if all(user in absorbed and node in absorbed[user].absorbed
                       for user in node.users):
                    self.inside.add(node)
        self.last_call: CallStats | None = None
        self._kept: dict[fx.Node, _Resident] = {}  # graph inputs' device copies

    def __call__(self, args: list[Any]) -> Any:
        before = self.device.transfers.copy()
        stats = CallStats()
        env: dict[fx.Node, Any] = {}
        on_host: dict[int, torch.Tensor] = {}
        inputs = iter(list(args))
        args.clear()  # the boxed convention: the callee frees what it no longer needs
        result: Any = None
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                env[node] = next(inputs)
            elif node.op == "output":
                result = fx.node.map_arg(node.args[0], lambda n: self._host(env[n], on_host))
            elif node in self.inside:
                continue
            elif node in self.kernels:
                spec, handle = self.kernels[node]
                env[node] = self._run(spec, handle, env, stats)
            elif node in self.matrices:
                term, handle = self.matrices[node]
                env[node] = self._matrix(term, handle, env, stats)
            elif _is_view(node) and isinstance(env.get(node.args[0]), DeviceArray) \
                    and env[node.args[0]].contiguous:
                # A view of a contiguous device array is the same memory, reshaped.
                source = env[node.args[0]]
                env[node] = DeviceArray(source.device, source.buffer, _result_shape_of(node))
            elif node.op == "get_attr":
                env[node] = getattr(self.gm, str(node.target))
            else:
                args_ = fx.node.map_arg(node.args, lambda n: self._host(env[n], on_host))
                kwargs = fx.node.map_arg(node.kwargs, lambda n: self._host(env[n], on_host))
                env[node] = node.target(*args_, **kwargs)
        stats.transfers = self.device.transfers - before
        self.last_call = stats
        return result

    def _host(self, value: Any, cache: dict[int, torch.Tensor]) -> Any:
        """A value as torch needs it: a device array is read back (once per call)."""
        if not isinstance(value, DeviceArray):
            return value
        if id(value) not in cache:
            cache[id(value)] = torch.from_numpy(value.to_numpy())
        return cache[id(value)]

    def _device(self, node: fx.Node, value: Any) -> DeviceArray:
        """A kernel's operand on the device: a device array as it is; a tensor copied
        there, or, for a graph input (a parameter), its copy from an earlier call when
        it is the same tensor, unchanged since."""
        if isinstance(value, DeviceArray):
            return value
        assert isinstance(value, torch.Tensor)
        kept = self._kept.get(node)
        if kept is not None and kept.holds(value):
            return kept.array
        array = self.device.upload(np.ascontiguousarray(value.detach().numpy()))
        if node.op == "placeholder":
            self._kept[node] = _Resident(value, array)
        return array

    def _matrix(self, term: MatrixTerm, handle: KernelHandle, env: dict[fx.Node, Any],
                stats: CallStats) -> Any:
        """A matrix node on its contraction kernel: operands on the device (a weight kept
        there across calls), the result left there for the next kernel."""
        operands: list[DeviceArray] = [self._device(n, env[n]) for n in term.operands]
        if term.zeros is not None:
            if term.zeros not in self._zeros:
                self._zeros[term.zeros] = self.device.upload(np.zeros(term.zeros, np.float32))
            operands.append(self._zeros[term.zeros])
        out = matrix.call(handle, tuple(operands), dict(term.scalars), resident=True)
        stats.kernel_calls += 1
        cycles = handle.last_call.cycles if handle.last_call is not None else None
        if cycles is not None:
            stats.cycles = (stats.cycles or 0) + cycles
        assert isinstance(out, DeviceArray)
        if term.plus_zero:  # torch's bmm sums from +0: a zero result is +0
            return plus_zero(torch.from_numpy(out.to_numpy()))
        return out

    def _run(self, spec: FusedSpec, handle: KernelHandle, env: dict[fx.Node, Any],
             stats: CallStats) -> Any:
        operands = [self._device(n, env[n]) for n in spec.inputs]
        out = handle(*operands, resident=True)
        stats.kernel_calls += 1
        cycles = handle.last_call.cycles if handle.last_call is not None else None
        if cycles is not None:
            stats.cycles = (stats.cycles or 0) + cycles
        shape = _result_shape(spec)
        # torch's sums start from +0.0, so a zero sum is +0.0; the kernels' partials merge
        # from -0.0, the identity that keeps every sum's bits (as the torch ops do). A sum's
        # results therefore come back to the host for +0.0, also a row sum's (one value
        # per row), which a later kernel uploads again: 1 / sum(-0, -0) is +inf.
        if not _sums(handle.kernel):
            if isinstance(out, DeviceArray):
                return out if out.shape == shape else _reshape(out, shape)
            return torch.from_numpy(np.asarray(out)).reshape(shape)
        values = out.to_numpy() if isinstance(out, DeviceArray) else np.asarray(out)
        return plus_zero(torch.from_numpy(values).reshape(shape))


def _sums(kernel: Kernel) -> bool:
    """Whether the kernel's result is a sum or mean: of all its elements, or of each row."""
    final = kernel.reduction
    if final is None:
        staged = kernel.staged(kernel.dtypes[0])
        final = staged.final if staged is not None else None
    return final is not None and final.name in ("sum", "mean")


_VIEWS = ("view", "_unsafe_view", "reshape")


def _is_view(node: fx.Node) -> bool:
    op = node.target
    return (node.op == "call_function" and isinstance(op, torch._ops.OpOverload)
            and op.overloadpacket.__name__ in _VIEWS and bool(node.args)
            and isinstance(node.args[0], fx.Node)
            and isinstance(node.meta.get("val"), torch.Tensor))


def _result_shape_of(node: fx.Node) -> tuple[int, ...]:
    return tuple(int(d) for d in node.meta["val"].shape)


def _result_shape(spec: FusedSpec) -> tuple[int, ...]:
    value = spec.nodes[-1].meta["val"]
    if isinstance(value, tuple):
        value = value[0]
    return tuple(int(d) for d in value.shape)


def _reshape(array: DeviceArray, shape: tuple[int, ...]) -> DeviceArray:
    """A row reduction's results, ``(*)``, as torch's ``keepdim`` shape ``(*, 1)``: the
    same contiguous memory."""
    return DeviceArray(array.device, array.buffer, shape)
