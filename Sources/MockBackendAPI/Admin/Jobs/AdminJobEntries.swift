/// An import job as `GET /__admin/imports` shows it: its polling snapshot, when it was
/// uploaded, and the name of its stream, all in one flat object. The snapshot's fields read
/// as the entry's own (`entry.jobId`, `entry.status`).
@dynamicMemberLookup
public struct AdminImport: Codable, Sendable, Equatable {
    /// What `GET /api/v2/imports/{jobId}` answers for the job; sent flat, beside the rest.
    public var snapshot: ImportStatus
    public var createdAt: String
    /// `imports/<jobId>`: the name to push to or disconnect under `/__admin/streams`.
    public var stream: String

    public init(status: ImportStatus, createdAt: String, stream: String) {
        snapshot = status
        self.createdAt = createdAt
        self.stream = stream
    }

    public subscript<Value>(dynamicMember field: KeyPath<ImportStatus, Value>) -> Value {
        snapshot[keyPath: field]
    }

    private enum CodingKeys: String, CodingKey { case createdAt, stream }

    public init(from decoder: any Decoder) throws {
        snapshot = try ImportStatus(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        createdAt = try container.decode(String.self, forKey: .createdAt)
        stream = try container.decode(String.self, forKey: .stream)
    }

    public func encode(to encoder: any Encoder) throws {
        try snapshot.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(stream, forKey: .stream)
    }
}

/// A generation as `GET /__admin/generations` shows it: its polling snapshot (as its owner's
/// session reads it), its owner and prompt, and the name of its stream, all in one flat
/// object. The snapshot's fields read as the entry's own (`entry.id`, `entry.status`).
@dynamicMemberLookup
public struct AdminGeneration: Codable, Sendable, Equatable {
    /// What `GET /api/generations/{id}` answers its owner; sent flat, beside the rest.
    public var snapshot: GenerationStatus
    public var userId: Int
    public var prompt: String
    /// `generations/<id>`: the name to push to or disconnect under `/__admin/streams`.
    public var stream: String

    public init(status: GenerationStatus, userId: Int, prompt: String, stream: String) {
        snapshot = status
        self.userId = userId
        self.prompt = prompt
        self.stream = stream
    }

    public subscript<Value>(dynamicMember field: KeyPath<GenerationStatus, Value>) -> Value {
        snapshot[keyPath: field]
    }

    private enum CodingKeys: String, CodingKey { case userId, prompt, stream }

    public init(from decoder: any Decoder) throws {
        snapshot = try GenerationStatus(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        userId = try container.decode(Int.self, forKey: .userId)
        prompt = try container.decode(String.self, forKey: .prompt)
        stream = try container.decode(String.self, forKey: .stream)
    }

    public func encode(to encoder: any Encoder) throws {
        try snapshot.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userId, forKey: .userId)
        try container.encode(prompt, forKey: .prompt)
        try container.encode(stream, forKey: .stream)
    }
}
