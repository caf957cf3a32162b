import Foundation

/// One GET of a web API over the same libcurl the stores use (a CI's API: GitHub's runs), with
/// the same certificate authorities, timeouts and error.
public enum WebRequest {
    /// The status and body of `url` fetched with `headers`; a transfer that got no response throws
    /// `.transport` naming `url` (without its query) and why.
    public static func get(_ url: String, headers: [(String, String)]) async throws(StoreError) -> (
        status: Int, body: Data
    ) {
        let client = try CurlClient(maxConnections: 1)
        let request = HTTPRequest(method: "GET", url: url, headers: headers, stallSeconds: 20)
        switch try await client.perform(request) {
        case .success(let response): return (response.status, response.body)
        case .failure(let failure):
            let endpoint = url.split(separator: "?").first.map(String.init) ?? url
            throw .transport(endpoint: endpoint, reason: failure.message)
        }
    }
}
