"""The Vitis HLS C++ backend: kernel, C-simulation testbench and link config per plan."""

from fpgakern.backends.hls.generator import HlsSources, generate, render

__all__ = ["HlsSources", "generate", "render"]
