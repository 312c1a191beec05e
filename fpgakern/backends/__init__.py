"""Code generators that turn the kernel IR into build artifacts (HLS C++, RTL, host code).

One convention for every backend:

* ``render(plan) -> dict[str, str]`` makes a variant's files (relative file name -> text)
  without touching disk, so tests and golden files can read generated code directly;
  ``generate(plan, out_dir)`` writes that dict through :func:`fpgakern.backends.templates.write`,
  the one place generated files are written, and returns where they are. (``hls.render``
  also takes the link platform; ``host.render_category`` makes the per-category entry.)
* Where templates live follows one rule: the code a Vitis user builds and may adapt, the
  HLS C++ (kernel, testbench, ``fpgakern_ops.h``), the host code and the link config,
  comes from ``hls_templates/<kind>/`` at the top of the project (``default/`` unless the
  kernel's kind overrides a file, ``common/`` for shared macros, ``include/`` for
  shipped headers, ``csim/`` for the Vitis header stand-ins). Code fpgakern owns and
  verifies itself, the RTL kernel (``backends/rtl/templates/``, with its ``lib/`` and
  ``oplib/`` modules) and the ``.xo`` metadata (``link/``), sits beside its generator
  inside the package.
* Every generated kernel file opens with the same three comment lines
  (:func:`fpgakern.backends.templates.file_header`), in C++ and SystemVerilog alike.
"""
