"""Kernel specs: YAML loading with positions, schema validation, the kernel library."""
