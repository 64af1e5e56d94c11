import MockBackendSupport
import MockBackendTesting
import Testing

@testable import TestSupport

/// The semaphore behind `.fewAtATime`: at most its count at once, the others admitted in
/// the order they came as slots are released.
@Suite("AsyncSlots")
struct AsyncSlotsTests {
    @Test func admitsItsCountThenTheWaitersInOrder() async throws {
        let slots = AsyncSlots(count: 2)
        await slots.acquire()
        await slots.acquire()
        let admitted = LockedValue<[Int]>([])
        var waiting: [Task<Void, Never>] = []
        for index in 1...3 {
            waiting.append(
                Task {
                    await slots.acquire()
                    admitted.withLock { $0.append(index) }
                })
            // Each waiter queued before the next is started.
            #expect(await eventually { slots.waitingCount == index })
        }
        #expect(admitted.current.isEmpty)
        slots.release()
        #expect(await eventually { admitted.current == [1] })
        try await Task.sleep(for: .milliseconds(50))
        #expect(admitted.current == [1])
        slots.release()
        slots.release()
        #expect(await eventually { admitted.current == [1, 2, 3] })
        for task in waiting { await task.value }
    }
}
