"""fpgakern: framework operators to verified Vitis kernels, one YAML spec at a time."""

__version__ = "0.1.0"
