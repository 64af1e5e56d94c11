import Foundation

/// Counts this process's open socket descriptors of one server's connections, and nothing
/// another test opened. Reads /proc, so it is Linux only; elsewhere it returns nil.
package enum SocketCensus {
    /// Connections whose local port is `port`: the server side of every connection a test
    /// server accepted.
    package static func serverSideDescriptors(port: Int) -> Int? {
        descriptors { local, _ in local == port }
    }

    /// Connections whose remote port is `port`: this process's own connections to that
    /// server (a proxy's to its upstream).
    package static func clientSideDescriptors(remotePort port: Int) -> Int? {
        descriptors { _, remote in remote == port }
    }

    private static func descriptors(matching wanted: (_ localPort: Int?, _ remotePort: Int?) -> Bool) -> Int? {
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
                guard fields.count > 9, wanted(port(of: fields[1]), port(of: fields[2])),
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

    /// The port of an `address:port` field of /proc/net/tcp (hexadecimal).
    private static func port(of field: Substring) -> Int? {
        guard let colon = field.lastIndex(of: ":") else { return nil }
        return Int(field[field.index(after: colon)...], radix: 16)
    }
}
