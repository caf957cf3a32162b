import ExampleKit
import Foundation
import SnapshotTesting

/// Snapshots of a `Canvas` as PNG files on Linux, where swift-snapshot-testing's own image
/// strategies (UIKit, AppKit) do not exist: a `Snapshotting<Canvas, Data>` with the `png` path
/// extension and a `Diffing` that passes when at least `precision` of the pixels match.
extension Snapshotting where Value == Canvas, Format == Data {
    static var png: Snapshotting { png(precision: 0.985) }

    static func png(precision: Double) -> Snapshotting {
        Snapshotting(pathExtension: "png", diffing: .png(precision: precision)) { canvas in PNGFile.encode(canvas) }
    }
}

extension Diffing where Value == Data {
    static func png(precision: Double) -> Diffing {
        .diff(toData: { $0 }, fromData: { $0 }) { reference, new in
            guard reference != new else { return nil }
            guard let old = PNGFile.decode(reference) else { return ("the reference is not a PNG this strategy can read", []) }
            guard let now = PNGFile.decode(new) else { return ("the new image is not a PNG this strategy can read", []) }
            guard old.width == now.width, old.height == now.height else {
                return ("sizes differ: reference \(old.width)×\(old.height), new \(now.width)×\(now.height)", [])
            }
            let same = zip(old.pixels, now.pixels).filter { $0 == $1 }.count
            let ratio = old.pixels.isEmpty ? 1 : Double(same) / Double(old.pixels.count)
            guard ratio < precision else { return nil }
            let shown = String(format: "%.2f", ratio * 100)
            return ("\(old.pixels.count - same) of \(old.pixels.count) pixels differ: match \(shown)%, below the precision \(precision)",
                    [])
        }
    }
}

/// The smallest PNG writer and reader that serve the strategy: 8-bit RGB, filter 0, zlib
/// "stored" blocks (no compression; PNG viewers and libpng read it as any PNG).
enum PNGFile {
    static func encode(_ canvas: Canvas) -> Data {
        var raw = [UInt8]()
        raw.reserveCapacity((canvas.width * 3 + 1) * canvas.height)
        for y in 0..<canvas.height {
            raw.append(0)
            for x in 0..<canvas.width {
                let pixel = canvas[x, y]
                raw += [pixel.red, pixel.green, pixel.blue]
            }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, raw.count - offset)
            let final: UInt8 = offset + count == raw.count ? 1 : 0
            zlib += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        zlib += bigEndian(adler32(raw))
        var header = bigEndian(UInt32(canvas.width)) + bigEndian(UInt32(canvas.height))
        header += [8, 2, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", []))
    }

    /// Reads back what `encode` writes; nil for any other PNG.
    static func decode(_ data: Data) -> Canvas? {
        let bytes = [UInt8](data)
        guard bytes.count > 8, bytes[1...3] == [0x50, 0x4E, 0x47] else { return nil }
        var index = 8, width = 0, height = 0, zlib: [UInt8] = []
        while index + 8 <= bytes.count {
            let length = Int(bytes[index..<index + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            let kind = String(decoding: bytes[index + 4..<index + 8], as: UTF8.self)
            guard index + 12 + length <= bytes.count else { return nil }
            let body = bytes[index + 8..<index + 8 + length]
            if kind == "IHDR" {
                let values = Array(body)
                guard values.count == 13, values[8] == 8, values[9] == 2 else { return nil }
                width = Int(values[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
                height = Int(values[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            } else if kind == "IDAT" {
                zlib += body
            }
            index += 12 + length
        }
        var raw: [UInt8] = [], position = 2
        while position + 5 <= zlib.count {
            let header = zlib[position]
            guard header & 0b110 == 0 else { return nil }  // only stored blocks
            let count = Int(zlib[position + 1]) | Int(zlib[position + 2]) << 8
            guard position + 5 + count <= zlib.count else { return nil }
            raw += zlib[position + 5..<position + 5 + count]
            position += 5 + count
            if header & 1 == 1 { break }
        }
        guard width > 0, raw.count == (width * 3 + 1) * height else { return nil }
        var canvas = Canvas(width: width, height: height)
        for y in 0..<height {
            let row = y * (width * 3 + 1)
            guard raw[row] == 0 else { return nil }
            for x in 0..<width {
                let at = row + 1 + x * 3
                canvas[x, y] = RGB(raw[at], raw[at + 1], raw[at + 2])
            }
        }
        return canvas
    }

    private static func chunk(_ kind: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(kind.utf8) + body
        return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(UInt32.max) { crcTable[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}
