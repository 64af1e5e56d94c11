import MockBackendHTTP

/// What each subscriber of one stream was written, kept without work per event and
/// subscriber. (What of it was delivered, the sinks count: `DeliveryTally`.)
///
/// A subscriber gets every event logged while it is subscribed, so its live deliveries are
/// the sequences after the one it last settled at (`since`): counting them costs nothing
/// per event. Ids are noted only for the first `StreamConnectionRecord.deliveredIDLimit`
/// per connection: while a subscriber still lacks ids, the ledger keeps the wire ids of the
/// events logged since and copies them into its record in bulk when it settles. Settling
/// happens when the subscriber leaves, before an event is sent to it alone, when its record
/// is read, and for all of them once the kept ids reach twice the limit, which bounds them.
///
/// Lives in the stream's state, under the stream's lock.
struct DeliveryLedger {
    private struct Account {
        let record: StreamConnectionRecord
        /// Sequences up to this one are in the record.
        var since: Int
        /// Whether the record still takes ids.
        var needsIDs: Bool
    }

    private var accounts: [UInt64: Account] = [:]
    /// Wire ids of the sequences from `historyStart` on, kept while an account needs ids.
    /// Invariant: `historyStart <= since + 1` for every account that needs ids.
    private var history: [String] = []
    private var historyStart = 1
    private var needingIDs = 0

    /// Ids kept at most before every account is settled.
    private static let historyLimit = 2 * StreamConnectionRecord.deliveredIDLimit

    /// Opens an account for a subscriber whose record holds what it got up to `lastSequence`.
    mutating func open(_ connection: UInt64, record: StreamConnectionRecord, at lastSequence: Int) {
        let needsIDs = record.takesMoreIDs
        if needsIDs {
            if needingIDs == 0 { history.removeAll(keepingCapacity: true) }
            if history.isEmpty { historyStart = lastSequence + 1 }
            needingIDs += 1
        }
        accounts[connection] = Account(record: record, since: lastSequence, needsIDs: needsIDs)
    }

    /// Notes an event sent to every subscriber: one append, and only while some record
    /// still takes ids.
    mutating func logged(_ event: LoggedEvent) {
        guard needingIDs > 0 else { return }
        if history.isEmpty { historyStart = event.sequence }
        history.append(event.wireID)
        if history.count >= Self.historyLimit { settleAll(at: event.sequence) }
    }

    /// Brings one subscriber's record up to `lastSequence`.
    mutating func settle(_ connection: UInt64, at lastSequence: Int) {
        guard var account = accounts[connection], account.since < lastSequence else { return }
        settle(&account, at: lastSequence)
        accounts[connection] = account
    }

    /// Brings every record up to `lastSequence`; the kept ids start afresh after it.
    mutating func settleAll(at lastSequence: Int) {
        for connection in Array(accounts.keys) { settle(connection, at: lastSequence) }
        history.removeAll(keepingCapacity: history.capacity <= Self.historyLimit)
        historyStart = lastSequence + 1
    }

    /// Settles and closes a subscriber's account.
    mutating func close(_ connection: UInt64, at lastSequence: Int) {
        settle(connection, at: lastSequence)
        guard let account = accounts.removeValue(forKey: connection) else { return }
        accounts.shrinkIfSparse()
        if account.needsIDs { stopNeedingIDs() }
    }

    /// Notes an event logged at `sequence` that goes to some subscribers only (a session's
    /// last frame): every account is settled up to the one before it and then steps over
    /// it, so none counts it; the caller notes it in the records of those that got it.
    mutating func passOver(_ sequence: Int) {
        settleAll(at: sequence - 1)
        for connection in Array(accounts.keys) { accounts[connection]?.since = sequence }
        historyStart = sequence + 1
    }

    /// Notes an event sent to one subscriber outside the log (with its id, if it has one),
    /// after what it got before.
    mutating func sentAlone(id: String?, to connection: UInt64, at lastSequence: Int) {
        settle(connection, at: lastSequence)
        guard var account = accounts[connection] else { return }
        account.record.noteWritten(id: id)
        if account.needsIDs, !account.record.takesMoreIDs {
            account.needsIDs = false
            stopNeedingIDs()
        }
        accounts[connection] = account
    }

    private mutating func settle(_ account: inout Account, at lastSequence: Int) {
        let count = lastSequence - account.since
        guard count > 0 else { return }
        if account.needsIDs {
            let lower = account.since + 1 - historyStart
            let upper = lastSequence + 1 - historyStart
            assert(lower >= 0 && upper <= history.count, "the kept ids must cover every account that needs ids")
            account.record.noteWritten(count: count, ids: history[lower..<upper])
            if !account.record.takesMoreIDs {
                account.needsIDs = false
                stopNeedingIDs()
            }
        } else {
            account.record.noteWritten(count: count, ids: EmptyCollection())
        }
        account.since = lastSequence
    }

    private mutating func stopNeedingIDs() {
        needingIDs -= 1
        if needingIDs == 0 { history.removeAll(keepingCapacity: history.capacity <= Self.historyLimit) }
    }
}
