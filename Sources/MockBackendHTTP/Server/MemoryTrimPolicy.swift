/// When the server hands the memory its allocator keeps back to the system
/// (`Platform.releaseFreedMemory`): after a fan-out, once almost all of it has ended.
///
/// A fan-out is counted in exchanges open at once: an HTTP/1.1 connection is one, an
/// HTTP/2 connection one plus each of its open streams, so 5,000 streams on 50 h2
/// connections weigh what 5,000 HTTP/1.1 connections do. Not only when nothing is left
/// open: a client that publishes to the streams or watches them usually keeps its own.
/// Pure; the server keeps one under its registry's lock.
struct MemoryTrimPolicy {
    /// Exchanges open at once after which memory is handed back once most have ended.
    static let afterPeak = 256
    /// "Most": the exchanges open are down to this fraction of the peak.
    static let belowPeakFraction = 16

    /// The most exchanges open at once since memory was last handed back.
    private(set) var peak = 0

    /// Notes that `open` exchanges are open after one began.
    mutating func opened(nowOpen open: Int) {
        peak = max(peak, open)
    }

    /// Notes that `open` exchanges are open after some ended; true when memory should be
    /// handed back now (the peak then starts again from `open`).
    mutating func ended(nowOpen open: Int) -> Bool {
        guard peak >= Self.afterPeak, open <= peak / Self.belowPeakFraction else { return false }
        peak = open
        return true
    }
}
