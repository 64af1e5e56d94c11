/// The data of the import stream's events (SPEC 4.2).
enum ImportEvents {
    struct Started: Encodable {
        var jobId: String
        var status = "processing"
        var totalRows: Int
    }

    /// Both spellings of the counts: clients in the field read either.
    struct Progress: Encodable {
        var jobId: String
        var status = "processing"
        var progress: Double
        var processedRows: Int
        var totalRows: Int
        var processedCount: Int
        var totalCount: Int
    }

    struct Complete: Encodable {
        var jobId: String
        var status = "complete"
        var totalRows: Int
        var successfulRows: Int
        var failedRows: Int
    }

    struct Failure: Encodable {
        var jobId: String
        var code: String
        var message: String
    }
}
