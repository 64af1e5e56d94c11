import Testing

@testable import MockBackendHTTP

/// When memory is handed back: once most of a fan-out has ended, and not for a small one.
@Suite("Memory trim policy")
struct MemoryTrimPolicyTests {
    @Test func aFanOutThatEndsHandsMemoryBackOnceMostHaveEnded() {
        var policy = MemoryTrimPolicy()
        for open in 1...3000 { policy.opened(nowOpen: open) }
        // Down to a sixteenth of the peak, not before.
        let early = policy.ended(nowOpen: 3000 / 16 + 1)
        let due = policy.ended(nowOpen: 3000 / 16)
        #expect(!early)
        #expect(due)
        // Counted again from there: the rest (187) ending is no fan-out of its own.
        #expect(policy.peak == 3000 / 16)
        let rest = policy.ended(nowOpen: 0)
        #expect(!rest)
    }

    @Test func aSmallFanOutKeepsItsMemory() {
        var policy = MemoryTrimPolicy()
        for open in 1..<MemoryTrimPolicy.afterPeak { policy.opened(nowOpen: open) }
        let trimmed = policy.ended(nowOpen: 0)
        #expect(!trimmed)
    }

    @Test func theSameFanOutAgainHandsMemoryBackAgain() {
        var policy = MemoryTrimPolicy()
        for _ in 0..<2 {
            policy.opened(nowOpen: 1000)
            let trimmed = policy.ended(nowOpen: 1)
            #expect(trimmed)
        }
    }
}
