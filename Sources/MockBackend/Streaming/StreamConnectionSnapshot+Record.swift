/// An ended stream connection's record as the journal keeps it (`ChunkedRecordLog`).
extension StreamConnectionSnapshot {
    func write(to record: inout RecordWriter) {
        record.write(id)
        record.write(stream)
        record.write(`protocol`)
        record.write(connection)
        record.write(client)
        record.write(connectedAt)
        record.write(endedAt)
        record.write(endReason)
        record.write(lastEventId)
        record.write(requestHeaders)
        record.write(deliveredIds)
        record.write(deliveredCount)
        record.write(reconnect != nil)
        if let reconnect {
            record.write(reconnect.gapMs)
            record.write(reconnect.previousEndedAt)
            record.write(reconnect.advertisedRetryMs != nil)
            if let retry = reconnect.advertisedRetryMs { record.write(retry) }
        }
        record.write(upstreamIds != nil)
        if let upstreamIds { record.write(upstreamIds) }
    }

    init(reading record: inout RecordReader) {
        let id = record.readInt()
        let stream = record.readString()
        let `protocol` = record.readString()
        let connection = record.readUInt64()
        let client = record.readString()
        let connectedAt = record.readString()
        let endedAt = record.readOptionalString()
        let endReason = record.readOptionalString()
        let lastEventId = record.readOptionalString()
        let requestHeaders = record.readDictionary()
        let deliveredIds = record.readStrings()
        let deliveredCount = record.readInt()
        var reconnect: Reconnect?
        if record.readBool() {
            let gap = record.readDouble()
            let previousEndedAt = record.readString()
            let retry = record.readBool() ? record.readInt() : nil
            reconnect = Reconnect(gapMs: gap, previousEndedAt: previousEndedAt, advertisedRetryMs: retry)
        }
        let upstreamIds = record.readBool() ? record.readStrings() : nil
        self.init(
            id: id, stream: stream, protocol: `protocol`, connection: connection, client: client,
            connectedAt: connectedAt, endedAt: endedAt, endReason: endReason, lastEventId: lastEventId,
            requestHeaders: requestHeaders, deliveredIds: deliveredIds, deliveredCount: deliveredCount,
            reconnect: reconnect)
        if let upstreamIds {
            proxied = true
            self.upstreamIds = upstreamIds
        }
    }
}
