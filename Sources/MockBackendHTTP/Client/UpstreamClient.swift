import Dispatch
import MockBackendSupport

/// Timeouts and limits of upstream connections.
public struct UpstreamClientSettings: Sendable {
    /// From sending a request to its response's head, connect and TLS handshake included;
    /// after the head there is none (a stream may stay quiet for as long as it likes).
    /// A streamed request body's waits for the client do not count: each part sent up
    /// starts it again. Default 30 s.
    public var headTimeout: Duration = .seconds(30)
    /// How long a kept connection waits in the pool for its next request. Default 30 s.
    public var idleTimeout: Duration = .seconds(30)
    /// Kept connections per server at most. Default 64.
    public var maxIdlePerServer = 64

    public init() {}
}

/// The proxy's HTTP/1.1 client: sends a request to an upstream server over the project's
/// own sockets (`SocketChannel`) and TLS (an `UpstreamTransport`), on an event loop of its
/// own, keeping connections for reuse, and streams the answer to a handler as it arrives.
///
/// Names are resolved off the loop (`getaddrinfo` blocks) and their addresses tried in
/// turn; a request whose kept connection turns out closed before any byte of its answer
/// is sent again once on a new connection.
///
/// Invariant: `idle`, `nextID` and every connection are touched only on `loop.queue`;
/// what the public methods do is queued there. That is what makes the `@unchecked
/// Sendable` sound.
package final class UpstreamClient: @unchecked Sendable {
    package let settings: UpstreamClientSettings
    private let loop: EventLoop
    private let transports: [String: any UpstreamTransport]
    /// Sockets, timers and connections of this client (`openDescriptors`, `openConnections`).
    package let statistics: LockedValue<ServerStatistics>
    private var idle: [UpstreamOrigin: [UpstreamConnection]] = [:]
    private var open: [UInt64: UpstreamConnection] = [:]
    private var nextID: UInt64 = 0
    private var stopped = false

    /// - Parameter transports: by scheme; `http` is plain TCP unless given.
    package init(
        settings: UpstreamClientSettings = UpstreamClientSettings(), transports: [String: any UpstreamTransport] = [:],
        readiness: ReadinessMechanism = .platformDefault
    ) {
        self.settings = settings
        var all = transports
        if all["http"] == nil { all["http"] = PlainUpstreamTransport() }
        self.transports = all
        let statistics = LockedValue(ServerStatistics())
        self.statistics = statistics
        loop = EventLoop(label: "mockbackend.upstream", mechanism: readiness, statistics: statistics)
    }

    /// Whether requests to `scheme` can be sent.
    package func supports(scheme: String) -> Bool { transports[scheme] != nil }

    /// Sends `request` to `server` (scheme, host and port; its base path is the caller's
    /// business) and returns the exchange at once; `handler` hears the answer.
    package func send(
        _ request: UpstreamRequest, to server: UpstreamOrigin, handler: any UpstreamResponseHandler
    ) -> UpstreamExchange {
        let exchange = UpstreamExchange(request: request, server: server.server, queue: loop.queue, handler: handler)
        loop.queue.async { [self] in dispatch(exchange, retried: false) }
        return exchange
    }

    /// Closes every connection, kept or busy (their exchanges end as closed), and stops
    /// the loop once they are gone.
    package func stop() {
        loop.queue.async { [self] in
            stopped = true
            for connection in Array(open.values) { connection.close() }
            idle = [:]
            loop.stop()
        }
    }

    // MARK: On the loop

    private func dispatch(_ exchange: UpstreamExchange, retried: Bool) {
        guard !exchange.cancelled else { return }
        guard !stopped else {
            exchange.end(.failed(.unreachable("the server is stopping")))
            return
        }
        if !retried, var kept = idle[exchange.server], let connection = kept.popLast() {
            idle[exchange.server] = kept
            connection.send(exchange)
            return
        }
        guard let transport = transports[exchange.server.scheme] else {
            exchange.end(.failed(.unreachable("\(exchange.server.scheme) is not supported")))
            return
        }
        let server = exchange.server
        DispatchQueue.global().async { [self] in
            let resolved = SocketConnector.resolve(host: server.host, port: server.port)
            loop.queue.async { [self] in
                switch resolved {
                case .failure(let error):
                    exchange.end(.failed(.unreachable(error.description)))
                case .success(let addresses):
                    connect(exchange, addresses: addresses[...], transport: transport, lastError: nil)
                }
            }
        }
    }

    /// Connects to the first of `addresses` that takes the request; the exchange fails with
    /// the last error once none is left.
    private func connect(
        _ exchange: UpstreamExchange, addresses: ArraySlice<SocketAddress>, transport: any UpstreamTransport,
        lastError: UpstreamFailure?
    ) {
        guard !exchange.cancelled, !stopped else { return }
        guard let address = addresses.first else {
            exchange.end(.failed(lastError ?? .unreachable("no address")))
            return
        }
        let fd: Int32
        switch SocketConnector.startConnect(to: address) {
        case .failure(let error):
            connect(
                exchange, addresses: addresses.dropFirst(), transport: transport, lastError: .unreachable("\(error)"))
            return
        case .success(let descriptor):
            fd = descriptor
        }
        nextID += 1
        let connection = UpstreamConnection(
            id: nextID, server: exchange.server,
            stream: transport.makeClientStream(fileDescriptor: fd, serverName: exchange.server.host), eventLoop: loop,
            statistics: statistics, settings: settings)
        open[connection.id] = connection
        connection.onClosed = { [weak self] closed in
            self?.open[closed.id] = nil
            self?.removeIdle(closed)
        }
        connection.onIdle = { [weak self] kept in self?.keep(kept) }
        connection.onEarlyFailure = { [weak self] failed, exchange, failure in
            guard let self else { return }
            if failed.exchangesCarried > 0 {
                // A kept connection gone stale: once more on a new connection, for a
                // method that may be repeated (RFC 9110 §9.2.2).
                if ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"].contains(exchange.request.method) {
                    self.dispatch(exchange, retried: true)
                } else {
                    exchange.end(.failed(failure))
                }
            } else {
                self.connect(exchange, addresses: addresses.dropFirst(), transport: transport, lastError: failure)
            }
        }
        guard connection.start() else {
            connect(exchange, addresses: addresses.dropFirst(), transport: transport, lastError: .unreachable("watch"))
            return
        }
        connection.send(exchange)
    }

    private func keep(_ connection: UpstreamConnection) {
        guard !stopped else {
            connection.close()
            return
        }
        var kept = idle[connection.server, default: []]
        guard kept.count < settings.maxIdlePerServer else {
            connection.close()
            return
        }
        kept.append(connection)
        idle[connection.server] = kept
    }

    private func removeIdle(_ connection: UpstreamConnection) {
        guard var kept = idle[connection.server] else { return }
        kept.removeAll { $0 === connection }
        idle[connection.server] = kept.isEmpty ? nil : kept
    }
}
