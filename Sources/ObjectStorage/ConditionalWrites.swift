import Foundation

// Small objects written only when a condition holds: what lets CI machines share timings and a
// work queue through the team's store, with no server of ours.

extension FolderStore: SharedStore {
    public func get(_ key: ObjectKey) async throws(StoreError) -> (data: Data, etag: String)? {
        guard let data = FileManager.default.contents(atPath: file(key).path) else { return nil }
        return (data, try Digest.hex(of: data, .md5))
    }

    /// `ifAbsent` is an exclusive create (link(2) of a complete temporary file, which fails when the
    /// key exists); `ifMatch` compares and renames under an exclusive lock of the key.
    @discardableResult
    public func put(_ data: Data, to key: ObjectKey, condition: WriteCondition) async throws(StoreError) -> String {
        let target = file(key)
        try createFolder(target.deletingLastPathComponent())
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".pipeline-tmp-\(UUID().uuidString)")
        do {
            try data.write(to: temporary)
        } catch {
            throw .io(path: target.path, reason: error.localizedDescription)
        }
        defer { unlink(temporary.path) }
        let etag = try Digest.hex(of: data, .md5)
        switch condition {
        case .always:
            try Self.rename(temporary, over: target)
        case .ifAbsent:
            guard link(temporary.path, target.path) == 0 else {
                if errno == EEXIST { throw .preconditionFailed(store: name, key: key.rawValue) }
                throw .io(path: target.path, reason: String(cString: strerror(errno)))
            }
        case .ifMatch(let expected):
            let lock = try lockFile(for: key)
            defer { close(lock) }
            guard let current = FileManager.default.contents(atPath: target.path),
                try Digest.hex(of: current, .md5) == expected
            else {
                throw .preconditionFailed(store: name, key: key.rawValue)
            }
            try Self.rename(temporary, over: target)
        }
        await KillPoints.passed("write \(key)")
        return etag
    }

    /// An open descriptor holding an exclusive lock of the key; closing it lets the next writer in.
    private func lockFile(for key: ObjectKey) throws(StoreError) -> Int32 {
        let url = root.appendingPathComponent(".pipeline-locks").appendingPathComponent(key.rawValue + ".lock")
        try createFolder(url.deletingLastPathComponent())
        let descriptor = open(url.path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .io(path: url.path, reason: String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .io(path: url.path, reason: reason)
        }
        return descriptor
    }

    private static func rename(_ source: URL, over target: URL) throws(StoreError) {
        guard Foundation.rename(source.path, target.path) == 0 else {
            throw .io(path: target.path, reason: String(cString: strerror(errno)))
        }
    }
}

extension S3Store: SharedStore {
    public func get(_ key: ObjectKey) async throws(StoreError) -> (data: Data, etag: String)? {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-get-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            try await download(key, to: scratch)
        } catch .notFound {
            return nil
        }
        guard let data = FileManager.default.contents(atPath: scratch.path) else {
            throw .io(path: scratch.path, reason: "the downloaded object cannot be read")
        }
        return (data, try Digest.hex(of: data, .md5))
    }

    /// `If-None-Match: *` or `If-Match: "etag"`. A 412, or a 409 ConditionalRequestConflict (a
    /// concurrent conditional write), is `preconditionFailed`; a 501 is `conditionalWritesUnsupported`.
    ///
    /// Each conditional write carries its own identity (`x-amz-meta-pipeline-write`): when a
    /// write succeeded but its answer was lost, its retry meets its own object and a 412; one HEAD
    /// then recognises the write as this one's, and it succeeded.
    @discardableResult
    public func put(_ data: Data, to key: ObjectKey, condition: WriteCondition) async throws(StoreError) -> String {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-put-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            try data.write(to: scratch)
        } catch {
            throw .io(path: scratch.path, reason: error.localizedDescription)
        }
        var headers: [(String, String)] = []
        switch condition {
        case .always: break
        case .ifAbsent: headers.append(("if-none-match", "*"))
        case .ifMatch(let etag): headers.append(("if-match", "\"\(etag)\""))
        }
        let identity = condition == .always ? [:] : [Self.writeMetadata: UUID().uuidString.lowercased()]
        do {
            try await upload(scratch, to: key, metadata: identity, extraHeaders: headers)
        } catch .service(_, _, let status, let code, let message)
            where status == 412 || code == "ConditionalRequestConflict"
        {
            _ = message
            // A retry of a write the server carried out meets the write itself: that is success.
            if let mine = identity[Self.writeMetadata], (try? await metadata(of: key))?[Self.writeMetadata] == mine {
                return try Digest.hex(of: data, .md5)
            }
            throw .preconditionFailed(store: name, key: key.rawValue)
        } catch .service(_, _, let status, let code, let message) where status == 501 {
            throw .conditionalWritesUnsupported(store: name, reason: "\(code)\(message.isEmpty ? "" : ": \(message)")")
        }
        return try Digest.hex(of: data, .md5)
    }

    /// The metadata naming a conditional write, so its retry knows it.
    static let writeMetadata = "pipeline-write"
}
