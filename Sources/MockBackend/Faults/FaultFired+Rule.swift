import MockBackendAPI

extension AdminFeedEvent.FaultFired {
    /// `rule` acting on `method target` on connection `connection`.
    init(_ rule: FaultRule, method: String, target: String, connection: UInt64) {
        self.init(fault: rule.id, kind: rule.fault.kind, method: method, target: target, connection: connection)
    }
}
