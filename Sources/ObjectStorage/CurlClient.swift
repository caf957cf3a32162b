import CCurl
import CCurlShims
import Foundation

/// One HTTP request, as the S3 store builds it. The body to send comes from a file; the body
/// received goes to a file (a download) or to memory (listings, errors).
struct HTTPRequest: Sendable {
    var method: String
    var url: String
    var headers: [(String, String)] = []
    var uploadFile: URL?
    var downloadFile: URL?
    /// AWS Signature V4 by libcurl: `aws:amz:<region>:s3`, with the key pair as separate options.
    var signing: (provider: String, accessKey: String, secret: String)?
    /// A transfer moving no byte for this long is abandoned (and retried): a stalled server.
    var stallSeconds = 30
}

struct HTTPResponse: Sendable {
    let status: Int
    /// Lowercased names.
    let headers: [String: String]
    /// The body when it was not written to `downloadFile`.
    let body: Data
}

/// A transfer that did not produce an HTTP response: the connection failed, timed out or dropped.
struct TransferFailure: Error, Sendable {
    let code: Int32
    let message: String
    /// Whether trying again can help: not when the server's certificate cannot be trusted.
    var retryable = true
}

/// Every libcurl call returns a code; this is the one place that turns a failure into an error.
enum CurlCheck {
    static func check(_ code: CURLcode, _ call: String) throws(StoreError) {
        guard code == CURLE_OK else {
            throw .transport(endpoint: call, reason: String(cString: curl_easy_strerror(code)))
        }
    }

    static func check(_ code: CURLMcode, _ call: String) throws(StoreError) {
        guard code == CURLM_OK else {
            throw .transport(endpoint: call, reason: String(cString: curl_multi_strerror(code)))
        }
    }
}

/// Runs many requests at once over kept-alive connections: one curl multi handle, owned by this
/// actor, driven by polling between awaits (no thread blocks in libcurl).
actor CurlClient {
    private let multi: MultiHandle
    private var waiting:
        [UnsafeMutableRawPointer: (Transfer, CheckedContinuation<Result<HTTPResponse, TransferFailure>, Never>)] = [:]
    private var driving = false

    init(maxConnections: Int = 16) throws(StoreError) {
        multi = try MultiHandle(maxConnections: maxConnections)
    }

    func perform(_ request: HTTPRequest) async throws(StoreError) -> Result<HTTPResponse, TransferFailure> {
        let transfer = try Transfer(request)
        try CurlCheck.check(curl_multi_add_handle(multi.handle, transfer.easy), "curl_multi_add_handle")
        let result = await withCheckedContinuation { continuation in
            waiting[transfer.easy] = (transfer, continuation)
            if !driving {
                driving = true
                Task { await self.drive() }
            }
        }
        return result
    }

    /// Moves every transfer forward until none is left, resuming each waiter as its transfer ends.
    private func drive() async {
        while !waiting.isEmpty {
            var running: Int32 = 0
            do {
                try CurlCheck.check(curl_multi_perform(multi.handle, &running), "curl_multi_perform")
            } catch {
                // The multi handle cannot go on: every transfer in it ends with that failure.
                for (easy, (_, continuation)) in waiting {
                    try? CurlCheck.check(curl_multi_remove_handle(multi.handle, easy), "curl_multi_remove_handle")
                    continuation.resume(returning: .failure(TransferFailure(code: -1, message: "\(error)")))
                }
                waiting = [:]
                break
            }
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi.handle, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let (transfer, continuation) = waiting.removeValue(forKey: easy)
                else { continue }
                let code = message.pointee.data.result
                do {
                    try CurlCheck.check(curl_multi_remove_handle(multi.handle, easy), "curl_multi_remove_handle")
                    continuation.resume(returning: transfer.finish(code))
                } catch {
                    continuation.resume(returning: .failure(TransferFailure(code: -1, message: "\(error)")))
                }
            }
            if !waiting.isEmpty { try? await Task.sleep(for: .milliseconds(1)) }
        }
        driving = false
    }
}

/// The one owner of a curl multi handle.
fileprivate final class MultiHandle: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    init(maxConnections: Int) throws(StoreError) {
        try Curl.load(for: "libcurl")
        guard let handle = curl_multi_init() else {
            throw .transport(endpoint: "curl_multi_init", reason: "out of memory")
        }
        self.handle = handle
        try CurlCheck.check(
            pipeline_curl_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, maxConnections),
            "CURLMOPT_MAX_TOTAL_CONNECTIONS")
    }

    deinit { curl_multi_cleanup(handle) }
}

/// One request in flight: the easy handle and everything it points at (header list, files),
/// all freed together in deinit.
fileprivate final class Transfer: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var uploadStream: UnsafeMutablePointer<FILE>?
    private let bodyStream: UnsafeMutablePointer<FILE>
    private let headerStream: UnsafeMutablePointer<FILE>
    private let request: HTTPRequest

    init(_ request: HTTPRequest) throws(StoreError) {
        self.request = request
        guard let easy = curl_easy_init() else {
            throw .transport(endpoint: request.url, reason: "curl_easy_init failed")
        }
        self.easy = easy
        // Received bodies and headers go to files: downloads to their target, the rest to
        // anonymous temporary files read back when the transfer ends.
        let body = request.downloadFile.map { fopen($0.path, "wb") } ?? tmpfile()
        guard let body, let headers = tmpfile() else {
            curl_easy_cleanup(easy)
            throw .io(path: request.downloadFile?.path ?? "a temporary file", reason: String(cString: strerror(errno)))
        }
        bodyStream = body
        headerStream = headers
        try configure()
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        if let uploadStream { fclose(uploadStream) }
        fclose(bodyStream)
        fclose(headerStream)
    }

    private func configure() throws(StoreError) {
        try set(CURLOPT_URL, request.url)
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_CONNECTTIMEOUT, 10)
        try set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try set(CURLOPT_LOW_SPEED_TIME, request.stallSeconds)
        try CurlCheck.check(pipeline_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, bodyStream), "CURLOPT_WRITEDATA")
        try CurlCheck.check(pipeline_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, headerStream), "CURLOPT_HEADERDATA")
        switch request.method {
        case "HEAD":
            try set(CURLOPT_NOBODY, 1)
        case "PUT":
            // A PUT always sends a body (possibly empty), read by libcurl's own fread.
            let path = request.uploadFile?.path ?? "/dev/null"
            guard let stream = fopen(path, "rb") else {
                throw .io(path: path, reason: String(cString: strerror(errno)))
            }
            uploadStream = stream
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
            try set(CURLOPT_UPLOAD, 1)
            try CurlCheck.check(pipeline_curl_setopt_pointer(easy, CURLOPT_READDATA, stream), "CURLOPT_READDATA")
            try CurlCheck.check(
                pipeline_curl_setopt_offset(
                    easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(request.uploadFile == nil ? 0 : size)),
                "CURLOPT_INFILESIZE_LARGE")
        case "GET":
            break
        default:
            try set(CURLOPT_CUSTOMREQUEST, request.method)
        }
        for (name, value) in request.headers {
            // NULL leaves the list as it was (freed in deinit): libcurl could not allocate.
            guard let appended = curl_slist_append(headerList, "\(name): \(value)") else {
                throw .transport(endpoint: "curl_slist_append", reason: "out of memory")
            }
            headerList = appended
        }
        try CurlCheck.check(pipeline_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList), "CURLOPT_HTTPHEADER")
        if let authorities = CertificateAuthorities.current {
            if let file = authorities.file { try set(CURLOPT_CAINFO, file) }
            if let directory = authorities.directory { try set(CURLOPT_CAPATH, directory) }
        }
        if let signing = request.signing {
            try set(CURLOPT_AWS_SIGV4, signing.provider)
            try set(CURLOPT_USERNAME, signing.accessKey)
            try set(CURLOPT_PASSWORD, signing.secret)
        }
    }

    private func set(_ option: CURLoption, _ value: String) throws(StoreError) {
        try CurlCheck.check(pipeline_curl_setopt_string(easy, option, value), "\(option)")
    }

    private func set(_ option: CURLoption, _ value: Int) throws(StoreError) {
        try CurlCheck.check(pipeline_curl_setopt_long(easy, option, value), "\(option)")
    }

    /// The response, once libcurl says the transfer ended with `code`.
    func finish(_ code: CURLcode) -> Result<HTTPResponse, TransferFailure> {
        fflush(bodyStream)
        guard code == CURLE_OK else {
            let message = String(cString: curl_easy_strerror(code))
            guard [CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM].contains(code)
            else {
                return .failure(TransferFailure(code: Int32(code.rawValue), message: message))
            }
            return .failure(
                TransferFailure(
                    code: Int32(code.rawValue), message: "\(message) (\(CertificateAuthorities.hint))", retryable: false
                ))
        }
        var status = 0
        do {
            try CurlCheck.check(
                pipeline_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status), "CURLINFO_RESPONSE_CODE")
        } catch {
            return .failure(TransferFailure(code: -1, message: "\(error)"))
        }
        let body = request.downloadFile == nil ? Self.readAll(bodyStream) : Data()
        return .success(
            HTTPResponse(status: status, headers: Self.parseHeaders(Self.readAll(headerStream)), body: body))
    }

    private static func readAll(_ stream: UnsafeMutablePointer<FILE>) -> Data {
        fflush(stream)
        rewind(stream)
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, stream)
            if count == 0 { break }
            data.append(contentsOf: buffer[..<count])
        }
        return data
    }

    /// The last response's headers (after redirects or 100-continue, only the final block counts).
    private static func parseHeaders(_ data: Data) -> [String: String] {
        var headers: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("HTTP/") {
                headers = [:]
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return headers
    }
}
