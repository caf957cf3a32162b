import CCurl
import CShims

/// Facts about the libcurl this binary is linked against.
public enum Curl {
    /// The linked libcurl's version, such as `7.88.1`.
    public static var version: String {
        guard let info = pipeline_curl_version_info() else { return "unknown" }
        return info.pointee.version.map { String(cString: $0) } ?? "unknown"
    }
}
