"""Verification: numpy references, C simulation, RTL simulation, comparisons."""
