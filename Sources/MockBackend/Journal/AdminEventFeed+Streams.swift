extension AdminEventFeed {
    /// `stream.connected`, from the journal's record of the connection.
    func publishConnected(_ record: StreamConnectionSnapshot) {
        publish(
            .streamConnected(
                .init(
                    stream: record.stream, connection: record.connection, lastEventId: record.lastEventId,
                    client: record.client, protocol: record.protocol)))
    }

    /// `stream.disconnected`, once the record holds the end.
    func publishDisconnected(_ record: StreamConnectionSnapshot) {
        publish(
            .streamDisconnected(
                .init(
                    stream: record.stream, connection: record.connection,
                    reason: record.endReason ?? StreamEndCause.connectionClosed.rawValue,
                    delivered: record.deliveredCount)))
    }
}
