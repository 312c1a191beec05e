"""The RTL backend: SystemVerilog kernels and the fk_* operator library in oplib/."""
