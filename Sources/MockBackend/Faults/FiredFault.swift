/// The fault rule that acted on a request: what `FaultMiddleware` hands the request journal
/// (`RequestJournalMiddleware`), which records it with the request and puts it on the
/// request's `request` event of the admin feed.
struct FiredFault: Sendable, Equatable {
    /// The rule's id.
    let ruleID: String
    let fault: Fault

    /// The journal's `fault` field and the feed's: the fault's kind and the rule's id,
    /// `drop_after_events fault_2`.
    var summary: String { "\(fault.kind) \(ruleID)" }
}
