import CCurl
import CCurlShims

/// libcurl, loaded by the first command that reaches S3 (on Linux; see CShims/curl_loader.c).
public enum Curl {
    /// The libcurl in use, such as `7.88.1`, or why there is none.
    public static var version: String {
        guard let info = pipeline_curl_version_info() else {
            return pipeline_curl_load().map { "not available (\(String(cString: $0)))" } ?? "unknown"
        }
        return info.pointee.version.map { String(cString: $0) } ?? "unknown"
    }

    /// Loads libcurl, once per process; every handle is created after this succeeded.
    static func load(for endpoint: String) throws(StoreError) {
        if let error = pipeline_curl_load() {
            throw .transport(
                endpoint: endpoint,
                reason: "libcurl could not be loaded (\(String(cString: error))); "
                    + "install it with 'apt-get install libcurl4' or run scripts/setup.sh")
        }
    }
}
