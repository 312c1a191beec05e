"""Damaged files give one FpgakernError, never another exception (hypothesis mutations)."""

from __future__ import annotations

import contextlib
import io
import struct
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from link_support import SAMPLES

from fpgakern.errors import FpgakernError
from fpgakern.link.axlf import HEADER, SECTION_HEADER
from fpgakern.link.inspect import dump_section, inspect_bytes
from fpgakern.link.xo import read_xo

FUZZ = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


def _survives(data: bytes) -> None:
    """inspect either reports or raises FpgakernError; nothing else may escape."""
    try:
        inspect_bytes(data)
    except FpgakernError as err:
        assert str(err)  # a message the user can read
    for name in ("IP_LAYOUT:JSON", "CONNECTIVITY:JSON", "EMBEDDED_METADATA"):
        with contextlib.suppress(FpgakernError):
            dump_section(data, name)


@pytest.fixture(scope="module")
def files(library) -> list[bytes]:
    """The real samples and one fpgakern xclbin, read once for every example."""
    from fpgakern.ladder import plan
    from fpgakern.link import kernel_xml, linker, platforms, xclbin

    inputs = [linker.LinkInput(kernel_xml.from_plan(plan(library.get(n), r, "float32")), cu)
              for n, r, cu in (("binary_ops/add", 3, 4), ("reduce_ops/sum", 4, 1))]
    ours = xclbin.to_xclbin(linker.link(inputs, platforms.load("u250")))
    return [*(p.read_bytes() for p in SAMPLES), ours]


@pytest.fixture(scope="module")
def xo_bytes(library, tmp_path_factory) -> bytes:
    from fpgakern.ladder import plan
    from fpgakern.link import xo

    folder = tmp_path_factory.mktemp("xo")
    (folder / "k.cpp").write_text("int k;\n")
    (folder / "k.sv").write_text("module k; endmodule\n")
    p = plan(library.get("unary_ops/exp"), 4, "float32")
    return xo.write_xo(p, folder / "k.xo", [folder / "k.cpp"], [folder / "k.sv"]).read_bytes()


@FUZZ
@given(which=st.integers(0, 10), cut=st.integers(0, 100_000))
def test_truncation(files, which, cut):
    data = files[which % len(files)]
    truncated = data[:cut % len(data)]
    with pytest.raises(FpgakernError):
        inspect_bytes(truncated)


@FUZZ
@given(which=st.integers(0, 10), flips=st.lists(
    st.tuples(st.integers(0, HEADER.size + 8 * SECTION_HEADER.size), st.integers(0, 255)),
    min_size=1, max_size=8))
def test_header_byte_flips(files, which, flips):
    buf = bytearray(files[which % len(files)])
    for pos, value in flips:
        if pos < len(buf):
            buf[pos] = value
    _survives(bytes(buf))


@FUZZ
@given(which=st.integers(0, 10), section=st.integers(0, 7),
       field=st.sampled_from([0, 24, 32]), value=st.one_of(
           st.integers(0, 2**32 - 1), st.integers(2**63, 2**64 - 1)))
def test_bogus_section_headers(files, which, section, field, value):
    buf = bytearray(files[which % len(files)])
    count = struct.unpack_from("<I", buf, 0x1C0)[0]
    at = HEADER.size + SECTION_HEADER.size * (section % count) + field
    if field == 0:
        struct.pack_into("<I", buf, at, value % 2**32)
    else:
        struct.pack_into("<Q", buf, at, value)
    _survives(bytes(buf))


@FUZZ
@given(which=st.integers(0, 10), pos=st.integers(0, 100_000),
       chunk=st.binary(min_size=1, max_size=16))
def test_payload_corruption(files, which, pos, chunk):
    """Counts, indices and XML inside the sections (not just the container)."""
    buf = bytearray(files[which % len(files)])
    start = HEADER.size + pos % max(1, len(buf) - HEADER.size)
    buf[start:start + len(chunk)] = chunk
    _survives(bytes(buf[:len(files[which % len(files)])]))


@FUZZ
@given(pos=st.integers(0, 10_000), chunk=st.binary(min_size=1, max_size=8),
       cut=st.integers(0, 10_000))
def test_xo_corruption(xo_bytes, pos, chunk, cut):
    data = bytearray(xo_bytes)
    data[pos % len(data):pos % len(data) + len(chunk)] = chunk
    for variant in (bytes(data), bytes(data[:cut % len(data)])):
        with contextlib.suppress(FpgakernError):
            inspect_bytes(variant)


def test_xo_without_kernel_xml_is_an_error():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("xo.xml", "<Root/>")
    with pytest.raises(FpgakernError, match="no kernel.xml"):
        inspect_bytes(buf.getvalue())


BAD_ENCODING = (b'encoding="UTF-8"', b'encoding="U-F-8"')


def test_an_unknown_xml_encoding_is_a_damaged_file(files, xo_bytes):
    """A flipped byte in an XML declaration's encoding name (hypothesis found
    'U-F-8') makes ElementTree raise LookupError: it is a damaged file like any other."""
    damaged_xclbins = [data.replace(*BAD_ENCODING) for data in files
                       if BAD_ENCODING[0] in data]
    assert damaged_xclbins, "no sample has an XML declaration to damage"
    for data in damaged_xclbins:
        with pytest.raises(FpgakernError):
            inspect_bytes(data)
    damaged = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(xo_bytes)) as src, zipfile.ZipFile(damaged, "w") as out:
        for item in src.infolist():
            out.writestr(item, src.read(item).replace(*BAD_ENCODING))
    assert damaged.getvalue() != xo_bytes
    with pytest.raises(FpgakernError):
        read_xo(damaged.getvalue())
