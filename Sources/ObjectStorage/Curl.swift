import CCurl
import CCurlShims

/// libcurl, loaded by the first command that reaches S3 (on Linux; see CCurlShims/curl_loader.c).
public enum Curl {
    /// The libcurl in use, such as `7.88.1`; throws why none could be loaded.
    public static func version() throws(StoreError) -> String {
        try load(for: "libcurl")
        return pipeline_curl_version_info()?.pointee.version.map { String(cString: $0) } ?? "unknown"
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
