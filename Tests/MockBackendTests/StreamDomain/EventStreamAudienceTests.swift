import MockBackendHTTP
import ServerSentEvents
import TestSupport
import Testing

@testable import MockBackend

/// Audiences (a player session's connections): an end reaches every connection of the
/// audience exactly once, whenever the connection comes — before, during its replay, or
/// after the end — and no other audience.
@Suite("Stream audiences ending")
struct EventStreamAudienceTests {
    static let settings = EventStreamSettings(replay: .deltas)
    static let last = StreamEvent(ServerSentEvent(type: nil, data: #"{"type":"SESSION_EXPIRATION"}"#))

    @Test func anEndReachesTheAudienceOnlyWithItsLastEventThenTheEnd() {
        let bench = StreamBench(settings: Self.settings)
        bench.stream.openAudience("s1")
        bench.stream.openAudience("s2")
        let mine = bench.subscribe(audience: "s1")
        let theirs = bench.subscribe(audience: "s2")
        bench.publish("shared")
        #expect(bench.stream.endAudience("s1", with: Self.last, cause: .sessionExpired) == 1)
        bench.run()
        #expect(mine.events.map(\.data) == ["shared", #"{"type":"SESSION_EXPIRATION"}"#])
        #expect(mine.events.map(\.id) == ["1", "2"])
        #expect(mine.entries.last == .finished(.complete))
        #expect(bench.record(of: mine)?.endReason == "session_expired")
        #expect(theirs.events.map(\.data) == ["shared"])
        #expect(theirs.endReason == nil)
        // Later events of the stream go on for the others, with ids after the end's.
        bench.publish("later")
        #expect(theirs.events.map(\.id) == ["1", "3"])
        // A second end of the same audience does nothing.
        #expect(bench.stream.endAudience("s1", with: Self.last, cause: .logout) == 0)
    }

    /// The audience ended between the request's check and the subscription: the new
    /// connection gets the same last event and the end, at once.
    @Test func aConnectionOfAnAudienceThatHasJustEndedGetsTheSameEnd() {
        let bench = StreamBench(settings: Self.settings)
        bench.stream.openAudience("s1")
        bench.stream.endAudience("s1", with: Self.last, cause: .sessionTerminated)
        let late = bench.subscribe(audience: "s1")
        #expect(late.events.map(\.data) == [#"{"type":"SESSION_EXPIRATION"}"#])
        #expect(late.entries.last == .finished(.complete))
        #expect(bench.record(of: late)?.endReason == "session_terminated")
        #expect(bench.record(of: late)?.deliveredIds == ["1"])
    }

    /// A connection still being replayed when its audience ends gets its replay, the end's
    /// event in order within it, and then the end.
    @Test func aCatchingUpConnectionEndsAfterItsReplay() {
        let bench = StreamBench(settings: Self.settings)
        bench.stream.openAudience("s1")
        let payload = String(repeating: "r", count: 1000)
        for _ in 1...150 { bench.stream.publish(ServerSentEvent(data: payload)) }
        let resuming = bench.subscribe(lastEventID: "1", audience: "s1", holding: true)
        #expect(bench.stream.snapshot.subscribers.first?.catchingUp == true)
        bench.stream.endAudience("s1", with: Self.last, cause: .sessionExpired)
        var rounds = 0
        while resuming.entries.last != .finished(.complete), rounds < 1000 {
            rounds += 1
            resuming.take(.max)
            bench.run()
        }
        resuming.take(.max)
        #expect(resuming.events.count == 150)
        #expect(resuming.events.last?.data == #"{"type":"SESSION_EXPIRATION"}"#)
        #expect(bench.record(of: resuming)?.endReason == "session_expired")
    }

    /// Ended audiences are remembered up to a bound, oldest forgotten first.
    @Test func endedAudiencesAreBounded() {
        let bench = StreamBench(settings: Self.settings)
        let limit = EventStream.endedAudienceLimit
        for index in 0...limit { bench.stream.endAudience("s\(index)", with: Self.last, cause: .sessionExpired) }
        #expect(bench.stream.state.withLock { $0.audiences.count } == limit)
        #expect(bench.stream.state.withLock { $0.audiences["s0"] } == nil)
    }
}
