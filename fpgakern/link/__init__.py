"""Link artifacts in the real Vitis formats: ``.xo`` kernel objects and ``.xclbin`` (axlf).

One concern per module, bottom to top:

``axlf``       the container: struct layouts as data, writer and reader
``sections``   binary section payloads (IP_LAYOUT, MEM_TOPOLOGY, CONNECTIVITY, clocks)
``metadata``   text payloads (EMBEDDED_METADATA XML, BUILD_METADATA JSON)
``kernel_xml`` the kernel description every layer shares, and its kernel.xml form
``ipxact``     the IP-XACT component.xml of the packaged RTL
``xo``         the .xo zip, written deterministically, and read back
``platforms``  target cards as data (``platforms/*.yaml``)
``config``     v++-style link configs (``[connectivity] nk= sp= slr= stream_connect=``)
``linker``     CUs, base addresses, interrupts and banks; fit checks; the xclbin bytes
``inspect``    reports on .xclbin and .xo files, like ``xclbinutil --info``
``vitis``      command lines for a real ``v++``
``resolve``    kernel references on the command line -> what to link
"""
