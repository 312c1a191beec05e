"""The external programs fpgakern drives, on the ground floor: every layer may use them.

``verilator`` (lint and the one Verilator command line), ``verilator_build`` (compiled
models), ``gxx`` (the C++ compiler, ccache), ``yosys`` (synthesis estimates), ``cache``
(the one locked "build once into the cache" routine) and ``versions`` (tool version lines
for cache keys).
"""
