/// A tar archive (POSIX ustar, IEEE Std 1003.1 "pax" format's base) of regular files, in
/// memory: how the dashboard downloads a recording's mapping directory in one file that
/// `tar -xf` unpacks anywhere.
struct TarArchive {
    private(set) var bytes: [UInt8] = []

    /// Adds a file, readable by everyone, dated `modified` (seconds since 1970). `path`
    /// must fit the 100 bytes of ustar's name field (recorded names are far shorter).
    mutating func add(path: String, contents: [UInt8], modified: Int) {
        var header = [UInt8](repeating: 0, count: 512)
        func put(_ text: String, at offset: Int, width: Int) {
            for (index, byte) in text.utf8.prefix(width).enumerated() { header[offset + index] = byte }
        }
        /// An octal number in `width - 1` digits and a NUL, as ustar writes numbers.
        func octal(_ value: Int, at offset: Int, width: Int) {
            let digits = String(value, radix: 8)
            put(String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits, at: offset, width: width - 1)
        }
        put(path, at: 0, width: 100)
        octal(0o644, at: 100, width: 8)
        octal(0, at: 108, width: 8)
        octal(0, at: 116, width: 8)
        octal(contents.count, at: 124, width: 12)
        octal(modified, at: 136, width: 12)
        header[156] = UInt8(ascii: "0")
        put("ustar", at: 257, width: 6)
        put("00", at: 263, width: 2)
        // The checksum is the sum of the header's bytes with its own field as spaces.
        for index in 148..<156 { header[index] = UInt8(ascii: " ") }
        let sum = header.reduce(0) { $0 + Int($1) }
        octal(sum, at: 148, width: 7)
        header[155] = UInt8(ascii: " ")
        bytes += header
        bytes += contents
        bytes += [UInt8](repeating: 0, count: (512 - contents.count % 512) % 512)
    }

    /// The archive, closed by the two empty blocks that end it.
    var finished: [UInt8] { bytes + [UInt8](repeating: 0, count: 1024) }
}
