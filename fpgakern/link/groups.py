"""GROUP_TOPOLOGY and GROUP_CONNECTIVITY: memory bank groups, as v++'s xclbins carry them.

v++ does not write these sections itself: it hands the xclbin to ``xclbinutil``, which
adds them whenever a file it writes has a MEM_TOPOLOGY and neither group section (unless
``--skip-bank-grouping``). The algorithm below is xclbinutil's
(``XclBinUtilities::createMemoryBankGrouping`` in XRT's
``src/runtime_src/tools/xclbinutil/XclBinUtilities.cxx``, the version that merges the
CONNECTIVITY entries back in, as the v++ 2022.1 samples show):

* GROUP_TOPOLOGY starts as a copy of MEM_TOPOLOGY (same indexes), then gets one entry
  per distinct memory group. The copy goes through xclbinutil's property tree, where a
  MEM_STREAMING_CONNECTION entry's m_size and m_base_address are ``route_id`` and
  ``flow_id``; the group section is written from the m_size/m_base_address keys, so a
  stream's entry there carries route/flow id 0/0 whatever MEM_TOPOLOGY says (the
  second and later stream_connect lines are the ones this changes);
* a CONNECTIVITY entry on a memory that is not HBM, DDR3 or DDR4 (MEM_DRAM counts as HBM),
  or that is unused, goes to GROUP_CONNECTIVITY as it is, in CONNECTIVITY's order;
* the others are sorted by (IP index, argument index, base address); a run of them for
  one IP and argument whose memories follow each other in the address space (each base is
  the previous base plus its size) becomes one group, provided it is that argument's only
  run: the group entry is a copy of the run's first memory with the run's summed size and
  the tag ``MBG[i:j,k]`` (the member indexes, consecutive ones as ``i:j``, cut to 15
  characters), reused when an equal entry exists; the argument's GROUP_CONNECTIVITY entry
  points at the group's index. A connection in no group keeps its memory index;
* finally every CONNECTIVITY entry is appended again, unchanged.

So an argument on ``HBM[0:3]`` has four CONNECTIVITY entries (one per pseudo-channel) and
in GROUP_CONNECTIVITY one entry on the group ``MBG[0:3]`` followed by the same four. XRT
reads the group sections when a file has them (else MEM_TOPOLOGY and CONNECTIVITY), and
``xrt::kernel::group_id`` answers an argument's last (highest) memory index there: the
group's, for a range.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from fpgakern.link.sections import MEM_TYPE_IDS, Connection, MemData

# The memory types xclbinutil groups (MEM_DRAM is taken as MEM_HBM)
GROUPABLE_TYPES = frozenset(MEM_TYPE_IDS[t] for t in ("MEM_HBM", "MEM_DDR3", "MEM_DDR4",
                                                       "MEM_DRAM"))
_STREAMING = MEM_TYPE_IDS["MEM_STREAMING_CONNECTION"]
TAG_MAX = 15  # mem_data.m_tag is char[16] with its NUL


@dataclass(frozen=True)
class _Working:
    connection: Connection
    base: int  # bytes
    size: int  # bytes

    @property
    def owner(self) -> tuple[int, int]:
        return self.connection.ip_layout_index, self.connection.arg_index


def group_tag(indexes: list[int]) -> str:
    """``MBG[0:3]``, ``MBG[0,2:4,6]``: sorted indexes, consecutive runs as ``first:last``."""
    ordered = sorted(indexes)
    parts: list[str] = []
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and ordered[end + 1] == ordered[end] + 1:
            end += 1
        parts.append(str(ordered[start]) if start == end
                     else f"{ordered[start]}:{ordered[end]}")
        start = end + 1
    return f"MBG[{','.join(parts)}]"[:TAG_MAX]


def _run_end(working: list[_Working], start: int) -> int:
    """The last index of the contiguous run of one IP and argument starting at ``start``."""
    end, size = start, working[start].size
    while (end + 1 < len(working) and working[end + 1].owner == working[start].owner
           and working[start].base + size == working[end + 1].base):
        end += 1
        size += working[end].size
    return end


def group_copy(mem: MemData) -> MemData:
    """MEM_TOPOLOGY entry ``mem`` as GROUP_TOPOLOGY's copy of it holds it (a stream's
    route/flow id become 0/0: the module's docstring)."""
    return replace(mem, size_kb=0, base_address=0) if mem.type == _STREAMING else mem


def bank_groups(mems: list[MemData], connections: list[Connection]
                ) -> tuple[list[MemData], list[Connection]]:
    """The GROUP_TOPOLOGY and GROUP_CONNECTIVITY entries xclbinutil derives from
    MEM_TOPOLOGY ``mems`` and CONNECTIVITY ``connections`` (the module's docstring)."""
    group_mems = [group_copy(m) for m in mems]
    out: list[Connection] = []
    working: list[_Working] = []
    for c in connections:
        mem = mems[c.mem_data_index]
        if mem.type not in GROUPABLE_TYPES or not mem.used:
            out.append(c)
            continue
        working.append(_Working(c, mem.base_address, mem.size_kb * 1024))
    # xclbinutil's std::sort is not stable; ties (one argument on two memories of one base
    # address) keep CONNECTIVITY's order here.
    working.sort(key=lambda w: (*w.owner, w.base))

    groupable = [False] * len(working)
    i = 0
    while i < len(working):
        end = _run_end(working, i)
        alone = ((i == 0 or working[i - 1].owner != working[i].owner)
                 and (end == len(working) - 1 or working[end + 1].owner != working[end].owner))
        if end > i and alone:
            groupable[i:end + 1] = [True] * (end + 1 - i)
        i = end + 1

    i = 0
    while i < len(working):
        first = working[i]
        end = _run_end(working, i) if groupable[i] else i
        if end == i:
            out.append(first.connection)
            i += 1
            continue
        run = working[i:end + 1]
        member = mems[first.connection.mem_data_index]
        group = replace(member, size_kb=sum(w.size for w in run) // 1024,
                        tag=group_tag([w.connection.mem_data_index for w in run]))
        if group not in group_mems:
            group_mems.append(group)
        out.append(replace(first.connection, mem_data_index=group_mems.index(group)))
        i = end + 1
    return group_mems, out + list(connections)
