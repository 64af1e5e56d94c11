import Foundation

/// Counts this process's open socket descriptors whose local port is `port`: the server
/// side of every connection a test server accepted, and nothing another test opened.
/// Reads /proc, so it is Linux only; elsewhere it returns nil.
package enum SocketCensus {
    package static func serverSideDescriptors(port: Int) -> Int? {
        #if os(Linux)
        var inodes = Set<String>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: `String(contentsOfFile:)` takes one read(), and the kernel
            // hands out these tables a page (about 27 sockets) per read, so every socket
            // past the first page went uncounted and a leak could pass unseen.
            guard let data = FileHandle(forReadingAtPath: table)?.readDataToEndOfFile() else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, let colon = fields[1].lastIndex(of: ":"),
                    Int(fields[1][fields[1].index(after: colon)...], radix: 16) == port,
                    fields[3] != "0A"  // 0A is LISTEN: the listening socket is not a connection
                else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
            return nil
        }
        return descriptors.filter { fd in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)") else {
                return false
            }
            return target.hasPrefix("socket:[") && inodes.contains(String(target.dropFirst(8).dropLast()))
        }.count
        #else
        return nil
        #endif
    }
}
