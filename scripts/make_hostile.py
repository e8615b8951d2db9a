#!/usr/bin/env python3
"""Writes dctool's hostile-file suite (tests/data/hostile/ and its MANIFEST) and the fuzzers' seed corpora
(tests/fuzz/corpus/<reader>/). Python 3 standard library only; the output is the same on every run.

  python3 scripts/make_hostile.py [--out tests/data/hostile] [--corpus tests/fuzz/corpus]

MANIFEST: one line per file, `NAME EXPECT [ARGS...]`. EXPECT is `ok` (a valid file: dct2, psnr and compress exit 0),
`err3` (a broken file: every command exits 3 with one `dctool: error: <file>: ...` line), `err` (exits non-zero with
that one line, code 2 or 3) or `any` (a valid but unusual file: exit 0 or that one line). ARGS go to every command
(raw files: --shape); CMD=EXPECT among them sets one command's expectation. tests/hostile/run_hostile.py runs the
suite.
"""
import argparse
import os
import struct
import sys
import zlib

FILES = []  # (name, bytes, expect, args, note)


def add(name, data, expect, note, args=""):
    assert len(data) < 10 * 1024, name
    assert expect in ("ok", "err3", "err", "any"), expect
    FILES.append((name, bytes(data), expect, args, note))


# ---- PNG ------------------------------------------------------------------------------------------------------------
def chunk(kind, body, crc=None):
    c = zlib.crc32(kind + body) & 0xFFFFFFFF if crc is None else crc
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", c)


def ihdr(w, h, depth=8, ctype=0, interlace=0, comp=0, filt=0):
    return chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, comp, filt, interlace))


PNG_SIG = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def png_rows(w, h, depth, ctype, filt=0, value=lambda x, y, c: (x * 7 + y * 13 + c * 50) & 0xFF):
    ch = CHANNELS[ctype]
    raw = bytearray()
    for y in range(h):
        raw.append(filt)
        if depth == 16:
            for x in range(w):
                for c in range(ch):
                    raw += struct.pack(">H", value(x, y, c) * 257)
        elif depth == 8:
            for x in range(w):
                for c in range(ch):
                    raw.append(value(x, y, c))
        else:  # 1, 2 or 4 bits, one channel
            bits, acc, n = depth, 0, 0
            row = bytearray()
            for x in range(w):
                acc = (acc << bits) | (value(x, y, 0) & ((1 << bits) - 1))
                n += bits
                if n == 8:
                    row.append(acc)
                    acc, n = 0, 0
            if n:
                row.append(acc << (8 - n))
            raw += row
    return bytes(raw)


def png(w, h, depth=8, ctype=0, extra=b"", idat=None, plte=None, end=True, value=None):
    if idat is None:
        rows = png_rows(w, h, depth, ctype) if value is None else png_rows(w, h, depth, ctype, value=value)
        idat = zlib.compress(rows, 9)
    out = PNG_SIG + ihdr(w, h, depth, ctype) + extra
    if ctype == 3 and plte is None:
        plte = bytes(range(0, 256, 16)) * 3
    if plte:
        out += chunk(b"PLTE", plte)
    out += chunk(b"IDAT", idat)
    if end:
        out += chunk(b"IEND", b"")
    return out


def make_png():
    g = png(16, 12)
    add("png_valid_gray8.png", g, "ok", "16x12 gray 8-bit")
    add("png_valid_rgb8.png", png(9, 7, 8, 2), "ok", "9x7 RGB")
    add("png_valid_rgba8.png", png(8, 8, 8, 6), "ok", "8x8 RGBA")
    add("png_valid_gray16.png", png(8, 5, 16, 0), "ok", "16-bit gray", "compress=any")
    add("png_valid_rgb16.png", png(6, 6, 16, 2), "ok", "16-bit RGB", "compress=any")
    add("png_valid_palette.png", png(10, 10, 8, 3, value=lambda x, y, c: (x + y) % 16), "ok", "palette with PLTE")
    add("png_valid_1x1.png", png(1, 1), "ok", "one pixel")
    add("png_valid_gray1bit.png", png(13, 5, 1, 0), "ok", "1-bit gray")
    add("png_valid_gray4bit.png", png(7, 3, 4, 0), "ok", "4-bit gray")
    add("png_palette_no_plte.png", PNG_SIG + ihdr(4, 4, 8, 3) + chunk(b"IDAT", zlib.compress(png_rows(4, 4, 8, 3)))
        + chunk(b"IEND", b""), "err3", "palette image without PLTE")
    add("png_palette_index_oob.png", png(4, 4, 8, 3, plte=b"\0\0\0\xff\xff\xff", value=lambda x, y, c: 200), "any",
        "palette indices past a 2-entry PLTE")
    for n in (0, 4, 8, 20, 33, 45, len(g) // 2, len(g) - 20):
        add("png_truncated_%d.png" % n, g[:n], "err3", "valid PNG cut to %d bytes" % n)
    add("png_truncated_in_iend.png", g[:-1], "any", "every pixel present, IEND's CRC cut")
    add("png_bad_signature.png", b"\x89PNX\r\n\x1a\n" + g[8:], "err3", "signature byte changed")
    bad_ihdr = bytearray(g)
    bad_ihdr[29] ^= 0xFF  # IHDR CRC
    add("png_bad_crc_ihdr.png", bad_ihdr, "err3", "IHDR CRC wrong")
    idat_body = zlib.compress(png_rows(16, 12, 8, 0), 9)
    add("png_bad_crc_idat.png", PNG_SIG + ihdr(16, 12) + chunk(b"IDAT", idat_body, crc=0x12345678) +
        chunk(b"IEND", b""), "err3", "IDAT CRC wrong")
    add("png_bad_zlib_garbage.png", png(16, 12, idat=b"\x78\x9c" + bytes(range(7, 200, 3))), "err3",
        "IDAT is not a zlib stream")
    add("png_bad_zlib_header.png", png(16, 12, idat=b"\x00\x00" + idat_body[2:]), "err3", "zlib header invalid")
    bad_adler = bytearray(idat_body)
    bad_adler[-1] ^= 0x55
    add("png_bad_zlib_adler.png", png(16, 12, idat=bytes(bad_adler)), "err3", "zlib Adler-32 wrong")
    add("png_zlib_short.png", png(16, 12, idat=zlib.compress(png_rows(16, 6, 8, 0))), "err3",
        "IDAT holds 6 of 12 rows")
    add("png_zlib_long.png", png(16, 12, idat=zlib.compress(png_rows(16, 24, 8, 0))), "any",
        "IDAT holds 24 rows for 12")
    add("png_bad_filter.png", png(8, 8, idat=zlib.compress(png_rows(8, 8, 8, 0, filt=9))), "err3",
        "row filter type 9")
    add("png_huge_ihdr.png", png(0x7FFFFFFF, 0x7FFFFFFF, idat=zlib.compress(b"\0" * 64)), "err3",
        "IHDR claims 2^31-1 squared")
    add("png_huge_ihdr_max.png", png(0xFFFFFFFF, 1, idat=zlib.compress(b"\0" * 64)), "err3",
        "IHDR width 2^32-1 (invalid)")
    add("png_rgba16_16384.png", png(16384, 16384, 16, 6, idat=zlib.compress(b"\0" * 8000, 9)), "err3",
        "IHDR claims a 16384^2 RGBA16 image, IDAT holds a few rows")
    add("png_65535x65535_gray.png", png(65535, 65535, idat=zlib.compress(b"\0" * 9000, 9)), "err3",
        "IHDR claims 65535^2, over the pixel limit")
    add("png_zero_width.png", png(0, 12, idat=zlib.compress(b"\0" * 12)), "err3", "width 0")
    add("png_zero_height.png", png(12, 0, idat=zlib.compress(b"")), "err3", "height 0")
    add("png_bad_depth.png", png(4, 4, 7, 0, idat=zlib.compress(b"\0" * 20)), "err3", "bit depth 7")
    add("png_bad_colortype.png", png(4, 4, 8, 5, idat=zlib.compress(b"\0" * 20)), "err3", "colour type 5")
    bad_combo = PNG_SIG + ihdr(4, 4, 16, 3) + chunk(b"PLTE", b"\0" * 6) + chunk(b"IDAT", zlib.compress(b"\0" * 36))
    add("png_palette_16bit.png", bad_combo + chunk(b"IEND", b""), "err3", "16-bit palette (invalid)")
    add("png_bad_interlace.png", PNG_SIG + ihdr(4, 4, 8, 0, interlace=2) + chunk(b"IDAT", zlib.compress(b"\0" * 20))
        + chunk(b"IEND", b""), "err3", "interlace method 2")
    add("png_bad_compression.png", PNG_SIG + ihdr(4, 4, 8, 0, comp=1) + chunk(b"IDAT", zlib.compress(b"\0" * 20))
        + chunk(b"IEND", b""), "err3", "compression method 1")
    add("png_no_idat.png", PNG_SIG + ihdr(4, 4) + chunk(b"IEND", b""), "err3", "no IDAT")
    add("png_no_ihdr.png", PNG_SIG + chunk(b"IDAT", zlib.compress(b"\0" * 20)) + chunk(b"IEND", b""), "err3",
        "no IHDR")
    add("png_ihdr_short.png", PNG_SIG + chunk(b"IHDR", b"\0\0\0\4\0\0\0\4\x08") + chunk(b"IEND", b""), "err3",
        "IHDR of 9 bytes")
    add("png_chunk_len_huge.png", PNG_SIG + ihdr(4, 4) + struct.pack(">I", 0x7FFFFFF0) + b"IDAT" + b"\0" * 32,
        "err3", "IDAT length 2^31-16 in a short file")
    esc = chunk(b"\x1b[2J", b"x") + chunk(b"a\nb\r", b"y")
    add("png_chunk_name_esc.png", PNG_SIG + ihdr(4, 4) + esc + chunk(b"IDAT", zlib.compress(png_rows(4, 4, 8, 0)))
        + chunk(b"IEND", b""), "err3", "chunk names with ESC [2J and a newline")
    add("png_critical_unknown.png", PNG_SIG + ihdr(4, 4) + chunk(b"ABCD", b"zz") +
        chunk(b"IDAT", zlib.compress(png_rows(4, 4, 8, 0))) + chunk(b"IEND", b""), "err3", "unknown critical chunk")
    add("png_no_iend.png", png(6, 6, end=False), "any", "IEND missing")
    add("png_garbage.png", bytes((i * 131 + 7) & 0xFF for i in range(700)), "err3", "bytes with no structure")
    add("png_control_bytes.png", PNG_SIG + b"\x1b]0;pwned\x07\x1b[2J\n\r\x7f" * 20, "err3",
        "terminal escape sequences after the signature")
    add("png_empty.png", b"", "err3", "empty file")


# ---- JPEG -----------------------------------------------------------------------------------------------------------
DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
DC_VALS = list(range(12))
AC_BITS = [1] + [0] * 15  # one code, "0" = EOB
AC_VALS = [0]


def seg(marker, body):
    return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body


def huff_codes(bits, vals):
    codes, code, k = {}, 0, 0
    for length in range(1, 17):
        for _ in range(bits[length - 1]):
            codes[vals[k]] = (code, length)
            code += 1
            k += 1
        code <<= 1
    return codes


class BitWriter:
    def __init__(self):
        self.out, self.acc, self.n = bytearray(), 0, 0

    def put(self, value, length):
        for i in range(length - 1, -1, -1):
            self.acc = (self.acc << 1) | ((value >> i) & 1)
            self.n += 1
            if self.n == 8:
                self.out.append(self.acc)
                if self.acc == 0xFF:
                    self.out.append(0)
                self.acc, self.n = 0, 0

    def flush(self):
        while self.n:
            self.put(1, 1)
        return bytes(self.out)


def jpeg_scan(w, h, ncomp, value):
    """Entropy-coded data of flat 8x8 blocks (DC only, quantizer 1), one block per component per MCU."""
    dc = huff_codes(DC_BITS, DC_VALS)
    bw, pred = BitWriter(), [0] * ncomp
    for by in range((h + 7) // 8):
        for bx in range((w + 7) // 8):
            for c in range(ncomp):
                coef = 8 * (value(bx, by, c) - 128)
                diff = coef - pred[c]
                pred[c] = coef
                cat = abs(diff).bit_length()
                code, length = dc[cat]
                bw.put(code, length)
                if cat:
                    bw.put(diff if diff > 0 else diff + (1 << cat) - 1, cat)
                bw.put(0, 1)  # EOB
    return bw.flush()


def jpeg(w, h, ncomp=1, sof=0xC0, precision=8, dht=None, sos_extra=None, scan=None, eoi=True, app=b"",
         value=lambda x, y, c: (x * 40 + y * 25 + c * 60) % 256, ss_se=(0, 63), samp=0x11, dqt=None):
    out = b"\xff\xd8" + app
    out += seg(0xDB, dqt if dqt is not None else b"\x00" + b"\x01" * 64)
    comps = b"".join(bytes([i + 1, samp, 0]) for i in range(ncomp))
    out += seg(sof, bytes([precision]) + struct.pack(">HH", h, w) + bytes([ncomp]) + comps)
    if dht is None:
        dht = b"\x00" + bytes(DC_BITS) + bytes(DC_VALS) + b"\x10" + bytes(AC_BITS) + bytes(AC_VALS)
    out += seg(0xC4, dht)
    sos = bytes([ncomp]) + b"".join(bytes([i + 1, 0x00]) for i in range(ncomp)) + bytes([ss_se[0], ss_se[1], 0])
    out += seg(0xDA, sos if sos_extra is None else sos_extra)
    out += jpeg_scan(w, h, ncomp, value) if scan is None else scan
    if eoi:
        out += b"\xff\xd9"
    return out


def make_jpeg():
    g = jpeg(32, 24)
    add("jpg_valid_gray.jpg", g, "ok", "32x24 gray baseline (flat 8x8 blocks)")
    add("jpg_valid_rgb.jpg", jpeg(24, 16, 3), "ok", "24x16 YCbCr baseline")
    add("jpg_valid_odd.jpg", jpeg(13, 5), "ok", "13x5 gray (partial blocks)")
    add("jpg_valid.jpeg", jpeg(8, 8), "ok", ".jpeg extension")
    for n in (2, 20, 100, len(g) - 20, len(g) - 5):
        add("jpg_truncated_%d.jpg" % n, g[:n], "err3", "valid JPEG cut to %d bytes" % n)
    add("jpg_no_eoi_short_scan.jpg", jpeg(64, 64, scan=jpeg_scan(64, 16, 1, lambda x, y, c: 99)[:-1], eoi=False),
        "err3", "scan data for a quarter of the blocks, no EOI")
    add("jpg_soi_only.jpg", b"\xff\xd8", "err3", "SOI only")
    add("jpg_not_jpeg.jpg", b"GIF89a" + b"\0" * 40, "err3", "GIF bytes with a .jpg name")
    bad_bits = [17] * 16  # 272 codes: more than 256 values and more than fit
    add("jpg_bad_huffman_count.jpg", jpeg(16, 16, dht=b"\x00" + bytes(bad_bits) + bytes(range(256)) + b"\0" * 16),
        "err3", "DHT counts sum to 272")
    over = [0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]  # three 2-bit codes + ...
    add("jpg_bad_huffman_oversub.jpg", jpeg(16, 16, dht=b"\x00" + bytes([3, 5] + [0] * 14) + bytes(range(8))
                                          + b"\x10" + bytes(AC_BITS) + bytes(AC_VALS)), "err3",
        "DHT with more codes than the code space (3 one-bit codes)")
    add("jpg_bad_huffman_values.jpg", jpeg(16, 16, dht=b"\x00" + bytes(over) + bytes([200, 201, 202]) + b"\x10" +
                                          bytes(AC_BITS) + bytes(AC_VALS)), "err3", "DC table with categories 200+")
    add("jpg_missing_huffman.jpg", jpeg(16, 16, sos_extra=b"\x01\x01\x33\x00\x3f\x00"), "err3",
        "scan uses Huffman tables 3/3 that were never defined")
    add("jpg_huffman_table_id_bad.jpg", jpeg(16, 16, dht=b"\x07" + bytes(DC_BITS) + bytes(DC_VALS)), "err3",
        "DHT table id 7")
    add("jpg_huge_dims.jpg", jpeg(65500, 65500, scan=b"\x00" * 64), "err3", "SOF claims 65500^2")
    add("jpg_huge_wide.jpg", jpeg(65535, 8, scan=b"\x00" * 64), "any", "SOF claims 65535x8 (within limits, short)")
    add("jpg_zero_height.jpg", jpeg(16, 0, scan=b"\x00" * 8), "err3", "height 0 (DNL)")
    add("jpg_zero_width.jpg", jpeg(0, 16, scan=b"\x00" * 8), "err3", "width 0")
    adobe = seg(0xEE, b"Adobe" + b"\x00\x64\x00\x00\x00\x00\x00")
    add("jpg_cmyk.jpg", jpeg(16, 16, 4, app=adobe), "any", "4-component Adobe CMYK")
    add("jpg_two_components.jpg", jpeg(16, 16, 2), "any", "2 components")
    add("jpg_12bit.jpg", jpeg(16, 16, sof=0xC1, precision=12), "any", "12-bit extended sequential")
    add("jpg_precision_3.jpg", jpeg(16, 16, precision=3), "err3", "sample precision 3")
    add("jpg_arithmetic.jpg", jpeg(16, 16, sof=0xC9), "any", "arithmetic coding SOF9 with Huffman-coded data")
    add("jpg_lossless.jpg", jpeg(16, 16, sof=0xC3), "any", "lossless SOF3")
    add("jpg_hierarchical.jpg", jpeg(16, 16, sof=0xC5), "err3", "differential SOF5")
    prog = jpeg(32, 32, sof=0xC2, ss_se=(0, 0))
    add("jpg_progressive_dc.jpg", prog, "any", "progressive, DC scan only")
    add("jpg_progressive_truncated.jpg", prog[:len(prog) - 10], "err3", "progressive DC scan cut short")
    add("jpg_progressive_no_scan.jpg", prog[:prog.index(b"\xff\xda")] + b"\xff\xd9", "err3",
        "progressive, no scan at all")
    add("jpg_progressive_bad_ss.jpg", jpeg(32, 32, sof=0xC2, ss_se=(5, 2)), "err3", "progressive Ss > Se")
    add("jpg_no_components.jpg", jpeg(16, 16, ncomp=0, scan=b""), "err3", "SOF with 0 components")
    add("jpg_sampling_zero.jpg", jpeg(16, 16, samp=0x00), "err3", "sampling factors 0")
    add("jpg_sampling_5.jpg", jpeg(16, 16, samp=0x55), "err3", "sampling factors 5x5")
    add("jpg_dqt_bad_id.jpg", jpeg(16, 16, dqt=b"\x07" + b"\x01" * 64), "err3", "DQT table id 7")
    add("jpg_dqt_short.jpg", jpeg(16, 16, dqt=b"\x00" + b"\x01" * 10), "err3", "DQT of 11 bytes")
    add("jpg_no_dqt.jpg", g[:2] + g[2 + 69:], "err3", "no quantization table")
    add("jpg_sos_bad_component.jpg", jpeg(16, 16, sos_extra=b"\x01\x09\x00\x00\x3f\x00"), "err3",
        "scan names component 9")
    add("jpg_marker_len_zero.jpg", b"\xff\xd8\xff\xe0\x00\x00" + g[2:], "any", "APP0 length 0")
    add("jpg_marker_len_huge.jpg", b"\xff\xd8\xff\xe1\xff\xff" + b"Exif\0\0" + b"\0" * 50, "err3",
        "APP1 length 65535 in a short file")
    add("jpg_garbage_scan.jpg", jpeg(64, 64, scan=bytes((i * 97 + 13) & 0xFE for i in range(600))), "err3",
        "random entropy-coded data")
    add("jpg_escape_comment.jpg", g[:2] + seg(0xFE, b"\x1b[2J\nhello\r\x07") + g[2:], "ok",
        "COM segment with ESC [2J and a newline")
    add("jpg_dri_missing_rst.jpg", g[:2] + seg(0xDD, struct.pack(">H", 1)) + g[2:], "err3",
        "restart interval 1, no RST markers in the scan")


# ---- BMP ------------------------------------------------------------------------------------------------------------
def bmp(w, h, bpp=24, pixels=None, palette=b"", offset=None, compression=0, clr_used=0, hdr_size=40,
        planes=1, file_size=None):
    if pixels is None:
        row = ((w * bpp + 31) // 32) * 4
        pixels = bytes((i * 37 + 11) & 0xFF for i in range(row * abs(h)))
    off = 14 + hdr_size + len(palette) if offset is None else offset
    info = struct.pack("<IiiHHIIiiII", hdr_size, w, h, planes, bpp, compression, len(pixels), 2835, 2835,
                       clr_used, 0)
    info += b"\0" * (hdr_size - 40) if hdr_size > 40 else b""
    body = info + palette + pixels
    size = 14 + len(body) if file_size is None else file_size
    return b"BM" + struct.pack("<IHHI", size, 0, 0, off) + body


def make_bmp():
    g = bmp(10, 7)
    pal = b"".join(bytes([i, i, i, 0]) for i in range(256))
    add("bmp_valid_24.bmp", g, "ok", "10x7 24-bit bottom-up")
    add("bmp_valid_8bit.bmp", bmp(12, 6, 8, palette=pal), "ok", "8-bit gray palette")
    add("bmp_valid_topdown.bmp", bmp(5, -4), "ok", "negative height: top-down rows (valid)")
    add("bmp_valid_32.bmp", bmp(4, 4, 32), "ok", "32-bit BI_RGB")
    for n in (2, 14, 30, 54, len(g) - 30, len(g) - 1):
        add("bmp_truncated_%d.bmp" % n, g[:n], "err3", "valid BMP cut to %d bytes" % n)
    add("bmp_pixels_short.bmp", bmp(64, 64, pixels=b"\x80" * 300), "err3", "64x64 24-bit with 300 pixel bytes")
    add("bmp_huge_dims.bmp", bmp(12976160, 24, pixels=b"\0" * 1900), "err3", "claims 12976160x24 in 2 KB")
    add("bmp_huge_both.bmp", bmp(0x7FFFFFFF, 0x7FFFFFFF, pixels=b"\0" * 100), "err3", "claims 2^31-1 squared")
    add("bmp_height_int_min.bmp", bmp(4, -0x80000000, pixels=b"\0" * 48), "err3", "height -2^31")
    add("bmp_width_negative.bmp", bmp(-4, 4, pixels=b"\0" * 48), "err3", "width -4")
    add("bmp_zero_width.bmp", bmp(0, 4, pixels=b""), "err3", "width 0")
    add("bmp_zero_height.bmp", bmp(4, 0, pixels=b""), "err3", "height 0")
    add("bmp_bad_offset.bmp", bmp(4, 4, offset=100000), "err3", "pixel offset past the end of the file")
    add("bmp_offset_in_header.bmp", bmp(4, 4, offset=2), "err3", "pixel offset inside the file header")
    add("bmp_offset_negative.bmp", bmp(4, 4, offset=0xFFFFFFF0), "err3", "pixel offset 2^32-16")
    add("bmp_bpp_7.bmp", bmp(4, 4, 7), "err3", "7 bits per pixel")
    add("bmp_bpp_0.bmp", bmp(4, 4, 0, pixels=b"\0" * 16), "err3", "0 bits per pixel")
    add("bmp_header_size_bad.bmp", bmp(4, 4, hdr_size=1000), "err3", "info header size 1000 past the end")
    add("bmp_header_size_small.bmp", bmp(4, 4)[:14] + struct.pack("<I", 8) + bmp(4, 4)[18:], "err3",
        "info header size 8")
    add("bmp_palette_huge.bmp", bmp(4, 4, 8, palette=pal[:64], clr_used=0x7FFFFFFF), "err3",
        "palette of 2^31-1 colours")
    add("bmp_palette_missing.bmp", bmp(4, 4, 8, palette=b""), "err3", "8-bit with no palette bytes")
    rle = b"\x04\x01\x04\x02\x00\x00" * 4 + b"\x00\x01"
    add("bmp_rle8.bmp", bmp(8, 4, 8, palette=pal, pixels=rle, compression=1), "any", "RLE8 (valid)")
    add("bmp_rle8_overrun.bmp", bmp(8, 4, 8, palette=pal, pixels=b"\xff\x07" * 40 + b"\x00\x02\xff\xff" * 10,
                                    compression=1), "err3", "RLE8 runs and deltas past the image")
    add("bmp_rle4_truncated.bmp", bmp(8, 4, 4, palette=pal[:64], pixels=b"\x08\x12\x00", compression=2), "err3",
        "RLE4 cut off mid-image")
    add("bmp_compression_bad.bmp", bmp(4, 4, compression=9), "err3", "compression 9")
    add("bmp_bitfields_zero.bmp", bmp(4, 4, 32, compression=3, hdr_size=56), "any",
        "BI_BITFIELDS with zero masks")
    add("bmp_planes_0.bmp", bmp(4, 4, planes=0), "any", "planes 0")
    add("bmp_os2_header.bmp", b"BM" + struct.pack("<IHHI", 26 + 48, 0, 0, 26) + struct.pack("<IHHHH", 12, 4, 4, 1, 24)
        + b"\x10" * 48, "any", "OS/2 BITMAPCOREHEADER 4x4")
    add("bmp_ba_magic.bmp", b"BA" + g[2:], "err3", "OS/2 bitmap-array magic")


# ---- TGA ------------------------------------------------------------------------------------------------------------
def tga(w, h, itype=2, bpp=24, data=None, idlen=0, cmap=(0, 0, 0, 0), desc=0):
    cmap_type, cmap_first, cmap_len, cmap_bits = cmap
    hdr = struct.pack("<BBBHHBHHHHBB", idlen, cmap_type, itype, cmap_first, cmap_len, cmap_bits, 0, 0, w, h, bpp,
                      desc)
    if data is None:
        data = bytes((i * 29 + 3) & 0xFF for i in range(w * h * (bpp // 8)))
    return hdr + b"I" * idlen + data


def make_tga():
    g = tga(9, 6)
    add("tga_valid_24.tga", g, "ok", "9x6 24-bit")
    add("tga_valid_gray.tga", tga(7, 5, 3, 8), "ok", "7x5 gray")
    add("tga_valid_32.tga", tga(4, 4, 2, 32, desc=8), "ok", "32-bit with alpha")
    add("tga_valid_rle.tga", tga(8, 2, 10, 24, data=b"\x87\x10\x20\x30" + b"\x87\x40\x50\x60"), "ok",
        "RLE 8x2 in two runs")
    for n in (5, 17, len(g) // 2, len(g) - 1):
        add("tga_truncated_%d.tga" % n, g[:n], "err3", "valid TGA cut to %d bytes" % n)
    add("tga_rle_truncated.tga", tga(64, 64, 10, 24, data=b"\xff\x10\x20\x30"), "err3", "RLE holding 128 of 4096")
    add("tga_rle_overrun.tga", tga(4, 2, 10, 24, data=b"\xff\x01\x02\x03" * 4), "any",
        "RLE packet runs past the last pixel")
    add("tga_huge_dims.tga", tga(65535, 65535, data=b"\0" * 64), "err3", "claims 65535^2")
    add("tga_zero_dims.tga", tga(0, 0, data=b""), "err3", "0x0")
    add("tga_zero_width.tga", tga(0, 5, data=b"\0" * 10), "err3", "width 0")
    add("tga_bad_type.tga", tga(4, 4, 5), "err3", "image type 5")
    add("tga_no_image.tga", tga(4, 4, 0, data=b""), "err3", "image type 0 (no image data)")
    add("tga_bpp_13.tga", tga(4, 4, 2, 13, data=b"\0" * 40), "err3", "13 bits per pixel")
    add("tga_cmap_bad.tga", tga(4, 4, 1, 8, cmap=(1, 200, 10, 24), data=b"\x05" * 16 + b"\0" * 30), "err3",
        "colour-mapped, indices outside a map too short for its own header")
    add("tga_cmap_huge.tga", tga(4, 4, 1, 8, cmap=(1, 0, 65535, 32), data=b"\0" * 64), "err3",
        "colour map of 65535 entries in a short file")
    add("tga_idlen_past_end.tga", tga(2, 2, data=b"") [:18] + b"x" * 3, "err3", "ID field longer than the file")
    add("tga_garbage.tga", bytes((i * 71 + 5) & 0xFF for i in range(300)), "err3", "bytes with no structure")


# ---- PNM ------------------------------------------------------------------------------------------------------------
def pnm(magic, w, h, maxval, data=None, channels=1):
    hdr = b"%s\n%d %d\n%d\n" % (magic, w, h, maxval)
    if data is None:
        n = w * h * channels * (2 if maxval > 255 else 1)
        data = bytes((i * 53 + 1) % min(maxval + 1, 256) for i in range(n))
    return hdr + data


def make_pnm():
    g = pnm(b"P5", 12, 9, 255)
    add("pgm_valid.pgm", g, "ok", "12x9 P5")
    add("ppm_valid.ppm", pnm(b"P6", 7, 5, 255, channels=3), "ok", "7x5 P6")
    add("pgm_valid_comment.pgm", b"P5\n# made by hand \x1b[2J\n4 4\n255\n" + b"\x40" * 16, "any",
        "comment with an escape sequence")
    add("pgm_valid_16bit.pgm", pnm(b"P5", 4, 4, 65535), "any", "16-bit P5")
    add("pgm_maxval_100.pgm", pnm(b"P5", 4, 4, 100), "any", "maxval 100")
    add("pgm_ascii.pgm", b"P2\n3 2\n255\n0 128 255\n10 20 30\n", "any", "plain (ASCII) P2")
    add("ppm_ascii.ppm", b"P3\n2 1\n255\n255 0 0 0 255 0\n", "any", "plain (ASCII) P3")
    for n in (1, 3, 8, len(g) // 2, len(g) - 1):
        add("pgm_truncated_%d.pgm" % n, g[:n], "err3", "valid PGM cut to %d bytes" % n)
    add("ppm_truncated.ppm", pnm(b"P6", 20, 20, 255, data=b"\x10" * 500), "err3", "P6 20x20 with 500 bytes")
    add("pgm_maxval_0.pgm", pnm(b"P5", 4, 4, 0, data=b"\0" * 16), "err3", "maxval 0")
    add("pgm_maxval_70000.pgm", pnm(b"P5", 4, 4, 70000, data=b"\0" * 32), "err3", "maxval 70000")
    add("pgm_claims_20000.pgm", pnm(b"P5", 20000, 20000, 255, data=b"\x7f" * 480), "err3",
        "499-byte file claiming 20000^2")
    add("pgm_claims_huge.pgm", pnm(b"P5", 2147483647, 2147483647, 255, data=b"\0" * 100), "err3",
        "claims 2^31-1 squared")
    add("pgm_dims_overflow.pgm", b"P5\n99999999999999999999 2\n255\n" + b"\0" * 40, "err3", "width of 20 digits")
    add("pgm_negative_width.pgm", b"P5\n-4 4\n255\n" + b"\0" * 16, "err3", "width -4")
    add("pgm_zero_dims.pgm", b"P5\n0 0\n255\n", "err3", "0x0")
    add("pgm_zero_height.pgm", b"P5\n5 0\n255\n", "err3", "height 0")
    add("pgm_header_garbage.pgm", b"P5\nab cd\n255\n" + b"\0" * 16, "err3", "letters for dimensions")
    add("pgm_no_maxval.pgm", b"P5\n4 4\n", "err3", "header ends before maxval")
    add("pgm_pbm_magic.pgm", b"P4\n8 2\n\xaa\x55", "any", "P4 bitmap with a .pgm name")
    add("pgm_bad_magic.pgm", b"P9\n4 4\n255\n" + b"\0" * 16, "err3", "magic P9")
    add("ppm_gray_magic.ppm", pnm(b"P5", 4, 4, 255), "any", "P5 data with a .ppm name")
    add("pgm_control_bytes.pgm", b"P5\n4\x1b[2J 4\n255\n" + b"\0" * 16, "err3", "ESC inside the dimensions")
    add("pgm_empty.pgm", b"", "err3", "empty file")


# ---- NPY ------------------------------------------------------------------------------------------------------------
def npy(header, data, version=(1, 0), pad=True):
    h = header.encode("latin1") if isinstance(header, str) else header
    if pad:
        total = 10 + len(h) + 1
        h = h + b" " * ((64 - total % 64) % 64) + b"\n"
    if version[0] == 1:
        return b"\x93NUMPY" + bytes(version) + struct.pack("<H", len(h)) + h + data
    return b"\x93NUMPY" + bytes(version) + struct.pack("<I", len(h)) + h + data


def hdr(descr, shape, fortran=False):
    return "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, "True" if fortran else "False", shape)


def f32(vals):
    return struct.pack("<%df" % len(vals), *vals)


def make_npy():
    v = f32([float(i) for i in range(12)])
    add("npy_valid_f32.npy", npy(hdr("<f4", "(3, 4)"), v), "ok", "3x4 float32")
    add("npy_valid_f64.npy", npy(hdr("<f8", "(2, 3)"), struct.pack("<6d", 1, 2, 3, 4, 5, 6)), "ok", "2x3 float64")
    add("npy_valid_u8.npy", npy(hdr("|u1", "(4, 4)"), bytes(range(16))), "ok", "4x4 uint8 '|u1'")
    add("npy_valid_u8_big.npy", npy(hdr(">u1", "(4, 4)"), bytes(range(16))), "ok",
        "4x4 uint8 '>u1' (numpy reads it as '|u1')")
    add("npy_valid_i16.npy", npy(hdr("<i2", "(2, 2)"), struct.pack("<4h", -5, 0, 7, 300)), "ok", "int16")
    add("npy_valid_3d.npy", npy(hdr("<f4", "(2, 2, 3)"), v), "ok", "2x2x3 (H,W,C)")
    add("npy_valid_v2.npy", npy(hdr("<f4", "(3, 4)"), v, version=(2, 0)), "ok", "format version 2.0")
    add("npy_valid_1d.npy", npy(hdr("<f4", "(12,)"), v), "any", "1-D array")
    add("npy_bad_magic.npy", b"\x93NUMPX\x01\x00" + npy(hdr("<f4", "(3, 4)"), v)[8:], "err3", "magic NUMPX")
    add("npy_bad_version.npy", npy(hdr("<f4", "(3, 4)"), v, version=(9, 0)), "err3", "version 9.0")
    add("npy_header_len_huge.npy", b"\x93NUMPY\x01\x00\xff\xff{'descr': '<f4'", "err3",
        "HEADER_LEN 65535 in a 30-byte file")
    add("npy_header_v2_len_huge.npy", b"\x93NUMPY\x02\x00\xff\xff\xff\x7f{'descr'", "err3",
        "v2 HEADER_LEN 2^31-1")
    add("npy_header_not_dict.npy", npy("[1, 2, 3]", v), "err3", "header is a list")
    add("npy_header_unterminated.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4", v), "err3",
        "header without its closing brace")
    add("npy_header_no_newline.npy", npy(hdr("<f4", "(3, 4)"), v, pad=False), "any", "header not padded or ended")
    add("npy_dtype_missing.npy", npy("{'fortran_order': False, 'shape': (3, 4), }", v), "err3", "no descr")
    add("npy_shape_missing.npy", npy("{'descr': '<f4', 'fortran_order': False, }", v), "err3", "no shape")
    for name, descr in (("complex", "<c8"), ("object", "|O"), ("unicode", "<U3"), ("datetime", "<M8[ns]"),
                        ("bytes", "|S4"), ("bad", "<x9"), ("struct", "[('a', '<f4')]")):
        add("npy_dtype_%s.npy" % name, npy(hdr(descr, "(3, 4)").replace("'[", "[").replace("]'", "]"),
                                           v * 2), "err", "dtype %s" % descr)
    # numpy's other integer, float16 and bool arrays are read (numpy's default integer is int64).
    add("npy_dtype_int64.npy", npy(hdr("<i8", "(3, 4)"), struct.pack("<12q", *[(-1) ** i * 7 ** i for i in range(12)])),
        "ok", "int64")
    add("npy_dtype_u64_max.npy", npy(hdr("<u8", "(2, 2)"), struct.pack("<4Q", 0, 1, 2 ** 63, 2 ** 64 - 1)), "ok",
        "uint64 up to 2^64-1")
    add("npy_dtype_f16.npy", npy(hdr("<f2", "(2, 3)"), struct.pack("<6H", 0x0001, 0x3c00, 0x7bff, 0xfbff, 0x8000, 0x3555)),
        "ok", "float16: subnormal, 1, +-65504, -0, 1/3")
    add("npy_dtype_f16_inf.npy", npy(hdr("<f2", "(1, 2)"), struct.pack("<2H", 0x3c00, 0x7c00)), "err3", "float16 Inf")
    add("npy_dtype_bool.npy", npy(hdr("|b1", "(2, 3)"), bytes([0, 1, 1, 0, 0, 1])), "ok", "bool")
    add("npy_dtype_bigendian_f4.npy", npy(hdr(">f4", "(3, 4)"), struct.pack(">12f", *range(12))), "ok",
        "big-endian float32")
    add("npy_huge_shape.npy", npy(hdr("<f4", "(100000, 100000)"), v), "err3", "shape 100000^2 with 48 bytes")
    add("npy_shape_overflow.npy", npy(hdr("<f8", "(4611686018427387904, 4)"), v), "err3", "shape 2^62 x 4")
    add("npy_shape_int_overflow.npy", npy(hdr("<f4", "(99999999999999999999999, 1)"), v), "err3",
        "a 23-digit dimension")
    add("npy_shape_negative.npy", npy(hdr("<f4", "(-3, 4)"), v), "err3", "shape (-3, 4)")
    add("npy_shape_zero.npy", npy(hdr("<f4", "(0, 4)"), b""), "err3", "shape (0, 4)")
    add("npy_shape_empty.npy", npy(hdr("<f4", "()"), v[:4]), "err3", "0-d array")
    add("npy_shape_4d.npy", npy(hdr("<f4", "(1, 2, 2, 3)"), v), "err", "4-D array")
    add("npy_truncated_data.npy", npy(hdr("<f4", "(3, 4)"), v[:30]), "err3", "30 of 48 data bytes")
    add("npy_truncated_header.npy", npy(hdr("<f4", "(3, 4)"), v)[:40], "err3", "cut inside the header")
    add("npy_extra_data.npy", npy(hdr("<f4", "(3, 4)"), v + b"\0" * 20), "any", "20 bytes after the data")
    add("npy_fortran_order.npy", npy(hdr("<f4", "(3, 4)", fortran=True), v), "ok", "fortran_order True (np.save of a.T)")
    add("npy_key_escape.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), "
                                  "'\x1b[2J\nevil\r': 1, }", v), "err3", "a header key with ESC [2J and a newline")
    add("npy_descr_escape.npy", npy(hdr("\x1b[31m<f4\n", "(3, 4)"), v), "err3", "descr with ESC and a newline")
    add("npy_nan.npy", npy(hdr("<f4", "(2, 2)"), f32([1.0, float("nan"), 3.0, 4.0])), "err3", "a NaN value")
    add("npy_inf.npy", npy(hdr("<f8", "(1, 2)"), struct.pack("<2d", 1.0, float("inf"))), "err3", "an Inf value")
    add("npy_binary_header.npy", npy(bytes(range(1, 120)), v), "err3", "header of control bytes")
    add("npy_empty.npy", b"", "err3", "empty file")


# ---- text -----------------------------------------------------------------------------------------------------------
def make_text():
    add("txt_valid.txt", b"1 2 3\n4 5 6\n", "ok", "2x3 spaces")
    add("csv_valid.csv", b"1,2,3\n4,5,6\n7,8,9\n", "ok", "3x3 commas")
    add("txt_valid_tabs_crlf.txt", b"1\t2\r\n3\t4\r\n", "ok", "tabs and CRLF")
    add("txt_long_row.txt", (" ".join(str(i % 97) for i in range(2000)) + "\n").encode(), "ok", "one row of 2000")
    add("txt_non_number.txt", b"1 2 3\n4 five 6\n", "err3", "a word among numbers")
    add("txt_ragged.txt", b"1 2 3\n4 5\n", "err3", "rows of 3 and 2")
    add("csv_ragged.csv", b"1,2\n3,4,5,6\n", "err3", "rows of 2 and 4")
    add("txt_nan.txt", b"1 nan\n3 4\n", "err3", "nan")
    add("txt_inf.txt", b"1 2\ninf 4\n", "err3", "inf")
    add("txt_overflow.txt", b"1 1e400\n3 4\n", "err3", "1e400 (overflows to inf)")
    add("txt_empty.txt", b"", "err3", "empty file")
    add("txt_only_blank.txt", b"\n\n   \n\t\n", "err3", "blank lines only")
    add("txt_control_bytes.txt", b"1 2\n3 \x1b[2J4\n", "err3", "ESC in a row")
    add("txt_nul.txt", b"1 2\n3\x004\n", "err3", "NUL byte in a row")
    add("txt_binary.txt", bytes((i * 89 + 1) & 0xFF for i in range(400)), "err3", "binary bytes")
    add("csv_empty_fields.csv", b"1,,3\n4,5,6\n", "err3", "an empty field")
    add("txt_hex.txt", b"0x10 2\n3 4\n", "any", "a hexadecimal number")
    add("txt_huge_line.txt", b"1" * 9000 + b"\n", "err3", "a 9000-digit number")


# ---- raw ------------------------------------------------------------------------------------------------------------
def make_raw():
    add("raw_valid.f32", f32([float(i) for i in range(16)]), "ok", "4x4 float32", "--shape 4x4")
    add("raw_valid.f64", struct.pack("<6d", *range(6)), "ok", "2x3 float64", "--shape 2x3")
    add("raw_valid_u8.raw", bytes(range(20)), "ok", "4x5 uint8", "--shape 4x5 --dtype u8")
    add("raw_size_short.f32", f32([1.0] * 15), "err3", "15 values for 4x4", "--shape 4x4")
    add("raw_size_long.f32", f32([1.0] * 17), "err3", "17 values for 4x4", "--shape 4x4")
    add("raw_size_odd.f64", b"\0" * 47, "err3", "47 bytes of float64", "--shape 2x3")
    add("raw_nan.f32", f32([1.0, float("nan"), 2.0, 3.0]), "err3", "a NaN", "--shape 2x2")
    add("raw_no_shape.f32", f32([1.0] * 4), "err", "no --shape given")
    add("raw_huge_shape.f32", f32([1.0] * 4), "err", "--shape 100000x100000", "--shape 100000x100000")
    add("raw_empty.raw", b"", "err3", "empty file", "--shape 1x1 --dtype u8")


# ---- seed corpora ---------------------------------------------------------------------------------------------------
def corpus():
    c = {
        "npy": [npy(hdr("<f4", "(3, 4)"), f32([float(i) for i in range(12)])),
                npy(hdr("|u1", "(4, 4)"), bytes(range(16))),
                npy(hdr("<i2", "(2, 2, 3)"), struct.pack("<12h", *range(12))),
                npy(hdr("<f8", "(2, 3)"), struct.pack("<6d", *range(6)), version=(2, 0))],
        "txt": [b"1 2 3\n4 5 6\n", b"# comment\n1.5\t-2e3\n3 4\n", b"7\n"],
        "csv": [b"1,2,3\n4,5,6\n", b"0.25, -1\r\n2, 3\r\n"],
        # raw: byte 0 picks the dtype (f32 f64 u8 u16 i16 i32, +0x80: f64 result), byte 1 the shape (1+lo x 1+hi)
        "raw": [b"\x00\x11" + f32([1, 2, 3, 4]), b"\x02\x33" + bytes(range(16)), b"\x01\x00" + struct.pack("<d", 3)],
        "png": [png(16, 12), png(9, 7, 8, 2), png(8, 8, 8, 6), png(8, 5, 16, 0),
                png(10, 10, 8, 3, value=lambda x, y, c: (x + y) % 16), png(13, 5, 1, 0)],
        "jpeg": [jpeg(32, 24), jpeg(24, 16, 3), jpeg(13, 5), jpeg(32, 32, sof=0xC2, ss_se=(0, 0))],
        "bmp": [bmp(10, 7), bmp(12, 6, 8, palette=b"".join(bytes([i, i, i, 0]) for i in range(256))),
                bmp(5, -4), bmp(4, 4, 32)],
        "tga": [tga(9, 6), tga(7, 5, 3, 8), tga(4, 4, 2, 32, desc=8),
                tga(8, 2, 10, 24, data=b"\x87\x10\x20\x30" + b"\x87\x40\x50\x60")],
        "pgm": [pnm(b"P5", 12, 9, 255), pnm(b"P5", 4, 4, 65535), b"P5\n# c\n3 2\n255\n\x00\x80\xff\x10\x20\x30"],
        "ppm": [pnm(b"P6", 7, 5, 255, channels=3), pnm(b"P6", 2, 2, 1000, channels=3)],
    }
    return c


def manifest_text():
    lines = ["# Written by scripts/make_hostile.py: NAME EXPECT [ARGS...]  # what the file is\n"]
    for name, _, expect, args, note in FILES:
        lines.append("%s %s%s  # %s\n" % (name, expect, " " + args if args else "", note))
    return "".join(lines)


def check(a):
    want = {name: data for name, data, _, _, _ in FILES}
    want["MANIFEST"] = manifest_text().encode()
    for reader, seeds in corpus().items():
        for i, s in enumerate(seeds):
            want[os.path.join("..", "..", "fuzz", "corpus", reader, "seed%d" % i)] = s
    bad = []
    for name, data in sorted(want.items()):
        path = os.path.normpath(os.path.join(a.out, name))
        try:
            with open(path, "rb") as f:
                if f.read() != data:
                    bad.append(name + " (differs)")
        except OSError:
            bad.append(name + " (missing)")
    extra = sorted(set(os.listdir(a.out)) - set(want))
    for reader in corpus():
        d = os.path.join(a.corpus, reader)
        extra += sorted(os.path.join(d, f) for f in os.listdir(d) if not f.startswith("seed"))
    bad += [e + " (not written by this script)" for e in extra]
    if bad:
        print("make_hostile: out of date, rerun scripts/make_hostile.py: " + ", ".join(bad))
        return 1
    print("make_hostile: %d files match" % len(want))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--out", default=os.path.join(root, "tests", "data", "hostile"))
    ap.add_argument("--corpus", default=os.path.join(root, "tests", "fuzz", "corpus"))
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 unless the files on disk match")
    a = ap.parse_args()
    for make in (make_png, make_jpeg, make_bmp, make_tga, make_pnm, make_npy, make_text, make_raw):
        make()
    names = [f[0] for f in FILES]
    assert len(names) == len(set(names)), "duplicate names"
    if a.check:
        return check(a)
    os.makedirs(a.out, exist_ok=True)
    for old in os.listdir(a.out):
        os.remove(os.path.join(a.out, old))
    for name, data, _, _, _ in FILES:
        with open(os.path.join(a.out, name), "wb") as f:
            f.write(data)
    with open(os.path.join(a.out, "MANIFEST"), "w") as m:
        m.write(manifest_text())
    for reader, seeds in corpus().items():
        d = os.path.join(a.corpus, reader)
        os.makedirs(d, exist_ok=True)
        for old in os.listdir(d):
            os.remove(os.path.join(d, old))
        for i, s in enumerate(seeds):
            with open(os.path.join(d, "seed%d" % i), "wb") as f:
                f.write(s)
    print("make_hostile: %d files in %s, corpora in %s" % (len(FILES), a.out, a.corpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
