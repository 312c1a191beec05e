"""Partition an aten graph into fused kernels, and say why each other node stays in torch.

torch's ``CapabilityBasedPartitioner`` finds the largest connected sets of nodes the
support table takes (never a set that would feed itself through a torch node). Within
each, nodes are grouped into kernels in graph order: a node joins the kernels of the
operands it alone uses, when the union is still one kernel the spec language can say
(``validate`` loads the spec as a user's spec is loaded); else it joins fewer of them,
or starts a kernel of its own. A node whose value another node also uses ends its
kernel: a kernel has one output. A full reduction ends its kernel too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

from torch import fx
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from fpgakern.compiler import support
from fpgakern.compiler.specs import FusedSpec, build_spec
from fpgakern.compiler.support import MatrixTerm, Term, Unsupported

# A group's spec, checked: None when the spec language takes it, else why not.
Validate = Callable[[FusedSpec], str | None]
_CLOSED = ("reduction", "row_reduction")  # roles whose value nothing can extend


@dataclass(eq=False)  # compared and hashed by identity: groups merge in place
class Group:
    terms: list[Term]
    partition: int

    @property
    def root(self) -> fx.Node:
        return self.terms[-1].node


@dataclass
class Fusion:
    """The plan for one graph: its kernels, and the nodes left to torch with reasons."""

    specs: list[FusedSpec] = field(default_factory=list)
    left_out: list[Unsupported] = field(default_factory=list)
    partitions: int = 0
    # Matrix nodes (mm, addmm, bmm) run on library contraction kernels, in graph order.
    matrices: list[MatrixTerm] = field(default_factory=list)

    def spec_of(self, node: fx.Node) -> FusedSpec | None:
        """The kernel whose result ``node`` is (None: ``node`` is not a kernel's result)."""
        return next((s for s in self.specs if s.nodes[-1] is node), None)

    def fused(self) -> set[fx.Node]:
        return {n for s in self.specs for n in s.nodes}


class _Support(OperatorSupportBase):
    def __init__(self, terms: dict[fx.Node, Term]) -> None:
        self.terms = terms

    def is_node_supported(self, submodules: object, node: fx.Node) -> bool:
        return node in self.terms


def plan(gm: fx.GraphModule, validate: Validate) -> Fusion:
    fusion = Fusion()
    terms: dict[fx.Node, Term] = {}
    for node in gm.graph.nodes:
        if node.op in ("placeholder", "output", "get_attr"):
            continue
        matrix = support.lower_matrix(node)
        if isinstance(matrix, MatrixTerm):
            fusion.matrices.append(matrix)
            continue
        lowered = matrix or support.lower(node)
        if isinstance(lowered, Term):
            terms[node] = lowered
        else:
            fusion.left_out.append(lowered)
    # A pick (getitem) of a row operator is supported only beside it.
    for node, term in list(terms.items()):
        if term.role == "pick" and term.operands[0] not in terms:
            del terms[node]
            fusion.left_out.append(Unsupported(node, "picks a result of a node left to torch"))
    # A relu that alone reads a Linear's result is the linear_relu kernel's epilogue.
    fusion.matrices = [_with_epilogue(m, terms) for m in fusion.matrices]
    # A transpose read by matrix kernels alone is theirs (they read the tensor under it).
    absorbed = {n for m in fusion.matrices for n in m.absorbed}
    for node in (*absorbed, *(m.node for m in fusion.matrices)):
        terms.pop(node, None)
    fusion.left_out = [u for u in fusion.left_out if u.node not in absorbed]
    partitioner = CapabilityBasedPartitioner(gm, _Support(terms),
                                             allows_single_node_partition=True)
    partitions = partitioner.propose_partitions()
    fusion.partitions = len(partitions)
    part_of = {node: i for i, p in enumerate(partitions) for node in p.nodes}
    groups = _group(gm, terms, part_of, validate, fusion)
    order = {node: i for i, node in enumerate(gm.graph.nodes)}
    for group in sorted(groups, key=lambda g: order[g.root]):
        fusion.specs.append(build_spec(group.terms))
    fusion.left_out.sort(key=lambda u: order[u.node])
    return fusion


def _with_epilogue(term: MatrixTerm, terms: dict[fx.Node, Term]) -> MatrixTerm:
    """``relu(linear(...))`` on matrix_ops/linear_relu (gelu, silu alike), when the relu is
    the Linear's only user: the relu node becomes the kernel's result, the Linear's node
    is absorbed."""
    users = list(term.node.users)
    epilogues = support.EPILOGUES.get(term.kernel, {})
    if len(users) != 1 or users[0] not in terms:
        return term
    user = users[0]
    kernel = epilogues.get(user.target)  # type: ignore[call-overload]
    if (kernel is None or tuple(user.args) != (term.node,)
            or dict(user.kwargs) not in ({}, {"approximate": "none"})):
        return term
    return dataclasses.replace(term, node=user, kernel=kernel,
                               absorbed=(*term.absorbed, term.node))


def _group(gm: fx.GraphModule, terms: dict[fx.Node, Term], part_of: dict[fx.Node, int],
           validate: Validate, fusion: Fusion) -> list[Group]:
    group_of: dict[fx.Node, Group] = {}
    order = {node: i for i, node in enumerate(gm.graph.nodes)}
    for node in gm.graph.nodes:
        if node not in part_of:
            continue
        term = terms[node]
        joinable: list[Group] = []
        for operand in term.operands:
            group = group_of.get(operand)
            if (group is not None and group.root is operand and len(operand.users) == 1
                    and group.partition == part_of[node]
                    and group.terms[-1].role not in _CLOSED and group not in joinable):
                joinable.append(group)
        chosen = _join(term, joinable, part_of[node], validate, order)
        if isinstance(chosen, str):
            fusion.left_out.append(Unsupported(node, chosen))
            continue
        for t in chosen.terms:
            group_of[t.node] = chosen
    groups = _absorb_shared(_unique(group_of), validate, order)
    kept = []
    for group in groups:
        problem = validate(build_spec(group.terms))
        if problem is None:
            kept.append(group)
        elif any(t.role != "pick" for t in group.terms):
            fusion.left_out += [Unsupported(t.node, problem) for t in group.terms]
    return kept


def _unique(group_of: dict[fx.Node, Group]) -> list[Group]:
    unique: list[Group] = []
    for group in group_of.values():
        if group not in unique:
            unique.append(group)
    return unique


def _absorb_shared(groups: list[Group], validate: Validate,
                   order: dict[fx.Node, int]) -> list[Group]:
    """Merge a kernel into the one kernel that uses its result in several places
    (``x`` of ``x * rsqrt(mean(x * x))``), where the merged kernel is still one."""
    merged = True
    while merged:
        merged = False
        home = {t.node: g for g in groups for t in g.terms}
        for group in groups:
            users = {home.get(user) for user in group.root.users}
            if len(users) != 1 or group.terms[-1].role in _CLOSED:
                continue
            (other,) = users
            if other is None or other is group or other.partition != group.partition:
                continue
            terms = sorted([*group.terms, *other.terms], key=lambda t: order[t.node])
            if validate(build_spec(terms)) is None:
                other.terms = terms
                groups = [g for g in groups if g is not group]
                merged = True
                break
    return groups


def _join(term: Term, joinable: list[Group], partition: int, validate: Validate,
          order: dict[fx.Node, int]) -> Group | str:
    """The group ``term`` ends: with all of ``joinable``, else with each one alone, else
    by itself; or why not even that is a kernel. A group whose result is a per-row value
    inside a row computation is kept for the nodes after it to complete."""
    options = [joinable] if joinable else []
    if len(joinable) > 1:
        options += [[g] for g in joinable]
    options.append([])
    reason = "no kernel"
    for chosen in options:
        merged = sorted((t for g in chosen for t in g.terms), key=lambda t: order[t.node])
        candidate = Group([*merged, term], partition)
        if term.role == "pick" and not chosen:
            return "picks a result of a node that is no kernel of its own"
        spec = build_spec(candidate.terms)
        problem = None if spec.pending else validate(spec)
        if problem is None:
            for g in chosen:
                g.terms = candidate.terms
            return chosen[0] if chosen else candidate
        reason = problem  # the last: the node by itself
    return reason
