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
    }

    init(reading record: inout RecordReader) {
        id = record.readInt()
        stream = record.readString()
        `protocol` = record.readString()
        connection = record.readUInt64()
        client = record.readString()
        connectedAt = record.readString()
        endedAt = record.readOptionalString()
        endReason = record.readOptionalString()
        lastEventId = record.readOptionalString()
        requestHeaders = record.readDictionary()
        deliveredIds = record.readStrings()
        deliveredCount = record.readInt()
        if record.readBool() {
            let gap = record.readDouble()
            let previousEndedAt = record.readString()
            let retry = record.readBool() ? record.readInt() : nil
            reconnect = Reconnect(gapMs: gap, previousEndedAt: previousEndedAt, advertisedRetryMs: retry)
        } else {
            reconnect = nil
        }
    }
}
