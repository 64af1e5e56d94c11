import Dispatch
import Logging
import MockBackendSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server on POSIX sockets and Dispatch.
///
/// One listening socket watched by a read source on the accept queue; each accepted
/// connection runs on one of a few serial event loops (one per usable processor). `start()` binds and returns at once; `stop()`
/// stops accepting, lets responses in flight finish, ends streams cleanly, and returns
/// when every connection has closed or the grace period is over.
public final class HTTPServer: Sendable {
    private struct Registry {
        var connections: [UInt64: HTTPConnection] = [:]
        var nextID: UInt64 = 1
        var stopping = false
        var onEmpty: (@Sendable () -> Void)?
        /// HTTP/2 streams open, on all connections.
        var http2Streams = 0
        var trim = MemoryTrimPolicy()
        /// Exchanges open: connections and HTTP/2 streams.
        var openExchanges: Int { connections.count + http2Streams }
    }

    private struct Listener {
        var socket: ListeningSocket
        var source: DispatchSourceRead
    }

    public let configuration: HTTPServerConfiguration
    /// Plain TCP, or TLS.
    public let transport: any StreamTransport
    private let responder: any HTTPResponder
    private let logger: Logger
    private let statisticsBox = LockedValue(ServerStatistics())
    private let registry = LockedValue(Registry())
    private let listener = LockedValue<Listener?>(nil)
    private let acceptQueue = DispatchQueue(label: "mockbackend.accept")
    /// One event loop per processor this process may run on; connections are assigned to
    /// them in turn. More loops than usable processors would only make their threads
    /// preempt each other, which shows up as tail latency.
    private let eventLoops: [EventLoop]
    /// A canned answer for a connection over the limit; sent without parsing the request.
    private static let overloadedResponse: [UInt8] = {
        let body = ProblemDetails(
            status: 503, code: "TOO_MANY_CONNECTIONS", detail: "The server's connection limit is reached.")
        guard case .bytes(let bytes) = body.response.body else { return [] }
        let head =
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: \(MediaType.problemJSON)\r\n"
            + "Content-Length: \(bytes.count)\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + bytes
    }()

    public init(
        configuration: HTTPServerConfiguration, responder: any HTTPResponder, logger: Logger,
        transport: any StreamTransport = PlainTransport()
    ) {
        self.configuration = configuration
        self.transport = transport
        self.responder = responder
        self.logger = logger
        let statistics = statisticsBox
        eventLoops = (0..<Platform.usableProcessorCount).map {
            EventLoop(label: "mockbackend.loop.\($0)", mechanism: configuration.readiness, statistics: statistics)
        }
    }

    deinit {
        for loop in eventLoops { loop.stop() }
    }

    /// The bound port, or nil before `start()`.
    public var port: Int? { listener.withLock { $0?.socket.port } }

    /// A snapshot of what the server holds now. The open connections are the registry's:
    /// a connection counts until the server has let it go, so a count seen falling is a
    /// slot free under `maxConnections`, and `stop` returns with it at 0.
    public var statistics: ServerStatistics {
        var statistics = statisticsBox.current
        (statistics.openConnections, statistics.openHTTP2Streams) = registry.withLock {
            ($0.connections.count, $0.http2Streams)
        }
        return statistics
    }

    /// Binds, listens and starts accepting. Throws if the address cannot be bound.
    public func start() throws(SocketError) {
        let socket = try ListeningSocket.bind(host: configuration.host, port: configuration.port)
        let source = DispatchSource.makeReadSource(fileDescriptor: socket.fileDescriptor, queue: acceptQueue)
        source.setEventHandler { [weak self] in self?.acceptPending(on: socket.fileDescriptor) }
        source.setCancelHandler { _ = Platform.closeFD(socket.fileDescriptor) }
        listener.withLock { $0 = Listener(socket: socket, source: source) }
        source.activate()
    }

    /// Stops accepting and releases the port; connections already open go on. For a start
    /// that failed half-way, before any client could connect.
    public func closeListener() {
        listener.withLock { listener in
            listener?.source.cancel()
            listener = nil
        }
    }

    /// Stops the server. Returns once every connection has closed (connections still open
    /// after `gracePeriod` are closed by force) and the event loops' threads are told to end.
    public func stop(gracePeriod: Duration = .milliseconds(1500)) async {
        await closeConnections(gracePeriod: gracePeriod)
        for loop in eventLoops { loop.stop() }
    }

    private func closeConnections(gracePeriod: Duration) async {
        closeListener()
        let connections = registry.withLock { registry in
            registry.stopping = true
            return Array(registry.connections.values)
        }
        for connection in connections {
            connection.queue.async { connection.beginShutdown() }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = LockedValue(false)
            let resumeOnce: @Sendable () -> Void = {
                let first = resumed.withLock { flag in
                    defer { flag = true }
                    return !flag
                }
                if first { continuation.resume() }
            }
            let isEmpty = registry.withLock { registry in
                if registry.connections.isEmpty { return true }
                registry.onEmpty = resumeOnce
                return false
            }
            if isEmpty {
                resumeOnce()
                return
            }
            acceptQueue.asyncAfter(deadline: .now() + DispatchDuration.interval(gracePeriod)) { [self] in
                let remaining = registry.withLock { Array($0.connections.values) }
                for connection in remaining {
                    connection.queue.async { connection.close(reason: .serverStopping) }
                }
            }
        }
    }

    private func acceptPending(on listeningFD: Int32) {
        // Accept everything queued in the backlog; the source fires again for later arrivals.
        while true {
            let fd = Platform.accept(listeningFD)
            guard fd >= 0 else {
                let code = Platform.errno
                if code == EINTR || code == ECONNABORTED { continue }
                if code != EAGAIN && code != EWOULDBLOCK {
                    logger.error("accept failed", metadata: ["error": "\(SocketError(call: "accept", code: code))"])
                }
                return
            }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            Platform.disableSIGPIPE(fd)
            admit(fd)
        }
    }

    private func admit(_ fd: Int32) {
        let context = ConnectionContext(
            configuration: configuration, responder: responder, logger: logger, statistics: statisticsBox,
            scheme: transport.scheme, onClosed: { [weak self] id in self?.connectionClosed(id) },
            newExchangeID: { [weak self] in self?.newExchangeID() ?? 0 },
            http2StreamsChanged: { [weak self] change in self?.http2StreamsChanged(by: change) })
        let connection: HTTPConnection? = registry.withLock { registry in
            guard !registry.stopping, registry.connections.count < configuration.maxConnections else { return nil }
            let id = registry.nextID
            registry.nextID += 1
            let connection = HTTPConnection(
                id: id, stream: transport.makeStream(fileDescriptor: fd), context: context,
                eventLoop: eventLoops[Int(id % UInt64(eventLoops.count))])
            registry.connections[id] = connection
            registry.trim.opened(nowOpen: registry.openExchanges)
            return connection
        }
        guard let connection else {
            // Plain bytes would only garble a TLS handshake: there the client sees a close.
            if transport is PlainTransport {
                Self.overloadedResponse.withUnsafeBytes { _ = Platform.send(fd, $0.baseAddress!, $0.count) }
            }
            _ = Platform.closeFD(fd)
            logger.warning("connection refused: limit of \(configuration.maxConnections) reached")
            return
        }
        connection.start()
    }

    /// An id from the connections' sequence for an HTTP/2 stream, which is a connection of
    /// its own to the streams it subscribes to and the journals it appears in.
    private func newExchangeID() -> UInt64 {
        registry.withLock { registry in
            defer { registry.nextID += 1 }
            return registry.nextID
        }
    }

    private func connectionClosed(_ id: UInt64) {
        let (onEmpty, trim): ((@Sendable () -> Void)?, Bool) = registry.withLock { registry in
            registry.connections[id] = nil
            registry.connections.shrinkIfSparse()
            let trim = registry.trim.ended(nowOpen: registry.openExchanges)
            guard registry.connections.isEmpty else { return (nil, trim) }
            defer { registry.onEmpty = nil }
            return (registry.onEmpty, trim)
        }
        if trim { releaseFreedMemorySoon() }
        onEmpty?()
    }

    /// Streams began (`change` > 0) or ended on an HTTP/2 connection.
    private func http2StreamsChanged(by change: Int) {
        let trim = registry.withLock { registry in
            registry.http2Streams += change
            guard change < 0 else {
                registry.trim.opened(nowOpen: registry.openExchanges)
                return false
            }
            return registry.trim.ended(nowOpen: registry.openExchanges)
        }
        if trim { releaseFreedMemorySoon() }
    }

    /// Hands freed memory back a moment from now: what an ended exchange held is freed
    /// once the blocks still queued for it have run.
    private func releaseFreedMemorySoon() {
        acceptQueue.asyncAfter(deadline: .now() + .milliseconds(300)) { Platform.releaseFreedMemory() }
    }
}
