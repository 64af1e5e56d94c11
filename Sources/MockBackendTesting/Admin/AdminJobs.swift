import MockBackend

extension AdminClient {
    /// `/__admin/imports`: CSV import jobs, driven past the simulated processing.
    public struct Imports: Sendable {
        let http: KitHTTP

        /// `GET /__admin/imports`: every job, oldest first.
        public func list() async throws -> [AdminImport] {
            try await http.call("GET", "/__admin/imports")
        }

        /// `POST /__admin/imports/{id}/pause`: a queued or processing job holds.
        @discardableResult
        public func pause(_ jobId: String) async throws -> ImportStatus { try await act("pause", jobId) }

        /// `POST /__admin/imports/{id}/resume`: a paused job goes on.
        @discardableResult
        public func resume(_ jobId: String) async throws -> ImportStatus { try await act("resume", jobId) }

        /// `POST /__admin/imports/{id}/complete`: every remaining row is processed at once.
        @discardableResult
        public func complete(_ jobId: String) async throws -> ImportStatus { try await act("complete", jobId) }

        /// `POST /__admin/imports/{id}/fail`: the stream's `error` event, with the code and message.
        @discardableResult
        public func fail(_ jobId: String, code: String? = nil, message: String? = nil) async throws -> ImportStatus {
            try await http.call(
                "POST", "/__admin/imports/\(KitHTTP.segment(jobId))/fail",
                json: ImportFailRequest(code: code, message: message))
        }

        /// 409 `JOB_STATE_CONFLICT` when the job is not in a state the action applies to.
        private func act(_ action: String, _ jobId: String) async throws -> ImportStatus {
            try await http.call("POST", "/__admin/imports/\(KitHTTP.segment(jobId))/\(action)")
        }
    }

    /// `/__admin/generations`: image generations, driven past the simulated duration.
    public struct Generations: Sendable {
        let http: KitHTTP

        /// `GET /__admin/generations`: every generation, with its owner and prompt.
        public func list() async throws -> [AdminGeneration] {
            try await http.call("GET", "/__admin/generations")
        }

        /// `POST /__admin/generations/{id}/complete`: the `completed` event, with its image URL.
        @discardableResult
        public func complete(_ id: String) async throws -> GenerationStatus {
            try await http.call("POST", "/__admin/generations/\(KitHTTP.segment(id))/complete")
        }

        /// `POST /__admin/generations/{id}/fail`: the `failed` event, with the code and message.
        @discardableResult
        public func fail(_ id: String, code: String? = nil, message: String? = nil) async throws -> GenerationStatus {
            try await http.call(
                "POST", "/__admin/generations/\(KitHTTP.segment(id))/fail",
                json: GenerationFailRequest(code: code, message: message))
        }
    }
}
