import Foundation

/// An access key pair, found the way AWS tools find it. `description` never shows the secret.
public struct AWSCredentials: Sendable, CustomStringConvertible {
    public let accessKey: String
    public let secret: String
    public let sessionToken: String?

    public init(accessKey: String, secret: String, sessionToken: String? = nil) {
        self.accessKey = accessKey
        self.secret = secret
        self.sessionToken = sessionToken
    }

    public var description: String { "access key \(accessKey.prefix(4))…" }

    /// From `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN`, else from the profile
    /// (`profile`, else `AWS_PROFILE`, else `default`) in `~/.aws/credentials`
    /// (`AWS_SHARED_CREDENTIALS_FILE`) or `~/.aws/config` (`AWS_CONFIG_FILE`).
    public static func resolve(
        profile: String? = nil,
        variables: [String: String] = ProcessInfo.processInfo.environment
    ) throws(StoreError) -> AWSCredentials {
        if profile == nil, let key = variables["AWS_ACCESS_KEY_ID"],
            let secret = variables["AWS_SECRET_ACCESS_KEY"],
            !key.isEmpty, !secret.isEmpty
        {
            return AWSCredentials(accessKey: key, secret: secret, sessionToken: variables["AWS_SESSION_TOKEN"])
        }
        let name = profile ?? variables["AWS_PROFILE"] ?? "default"
        let home = variables["HOME"] ?? NSHomeDirectory()
        let files = [
            (variables["AWS_SHARED_CREDENTIALS_FILE"] ?? "\(home)/.aws/credentials", name),
            (
                variables["AWS_CONFIG_FILE"] ?? "\(home)/.aws/config",
                name == "default" ? "default" : "profile \(name)"
            ),
        ]
        for (path, section) in files {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            let values = INI.section(section, in: text)
            if let key = values["aws_access_key_id"], let secret = values["aws_secret_access_key"] {
                return AWSCredentials(accessKey: key, secret: secret, sessionToken: values["aws_session_token"])
            }
        }
        throw .missingCredentials(
            "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give profile '\(name)' keys in ~/.aws/credentials")
    }
}

/// The small INI dialect of AWS's shared files: `[section]` then `key = value` lines.
enum INI {
    static func section(_ wanted: String, in text: String) -> [String: String] {
        var current: String?
        var values: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                current = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                continue
            }
            guard current == wanted, let equals = line.firstIndex(of: "=") else { continue }
            values[line[..<equals].trimmingCharacters(in: .whitespaces)] = line[line.index(after: equals)...]
                .trimmingCharacters(in: .whitespaces)
        }
        return values
    }
}
