"""Writes one small image in every PNG flavour the decoder must read: 8- and 16-bit RGB and RGBA,
8- and 16-bit grey, grey with alpha, and 8-, 4- and 2-bit palettes. The pixels are the same grey
levels everywhere (opaque), so every file decodes to the same RGBA. Usage: make-pngs.py FOLDER"""
import os, struct, sys, zlib

W, H = 7, 5
LEVELS = [0, 85, 170, 255]
grey = [[LEVELS[(x + 2 * y) % 4] for x in range(W)] for y in range(H)]


def png(name, colour_type, depth, rows, palette=None):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    body = b"".join(b"\0" + row for row in rows)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, depth, colour_type, 0, 0, 0))
    if palette:
        data += chunk(b"PLTE", b"".join(bytes(c) for c in palette))
    data += chunk(b"IDAT", zlib.compress(body)) + chunk(b"IEND", b"")
    open(os.path.join(sys.argv[1], name), "wb").write(data)


def packed(indices, depth):
    out, bits, acc = bytearray(), 0, 0
    for i in indices:
        acc = (acc << depth) | i
        bits += depth
        if bits == 8:
            out.append(acc); bits, acc = 0, 0
    if bits:
        out.append(acc << (8 - bits))
    return bytes(out)


png("rgb8.png", 2, 8, [bytes(v for g in row for v in (g, g, g)) for row in grey])
png("rgba8.png", 6, 8, [bytes(v for g in row for v in (g, g, g, 255)) for row in grey])
png("rgb16.png", 2, 16, [b"".join(struct.pack(">HHH", g * 257, g * 257, g * 257) for g in row) for row in grey])
png("rgba16.png", 6, 16, [b"".join(struct.pack(">HHHH", g * 257, g * 257, g * 257, 65535) for g in row) for row in grey])
png("grey8.png", 0, 8, [bytes(row) for row in grey])
png("grey16.png", 0, 16, [b"".join(struct.pack(">H", g * 257) for g in row) for row in grey])
png("greyalpha8.png", 4, 8, [bytes(v for g in row for v in (g, 255)) for row in grey])
palette = [(g, g, g) for g in LEVELS]
for depth in (8, 4, 2):
    png(f"palette{depth}.png", 3, depth, [packed([LEVELS.index(g) for g in row], depth) for row in grey], palette)
