/// The process variables that carry a store's credentials: AWS's own (keys, session token, web
/// identity, container credentials) and the CI secrets init's files keep them in
/// (`PIPELINE_PR_AWS_…`, `PIPELINE_DEVELOP_AWS_…`), and the CI's API token (`GITHUB_TOKEN`, which a
/// post-merge step holds to ask GitHub about runs). The build and the tests pipeline starts run
/// without them: the code under test has no business with the team's store. (Hygiene only: code
/// running as the same user can read its parent's variables; what protects the store is what the
/// credential may do, docs/ci.md.)
public enum CredentialVariables {
    static let names: Set<String> = [
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN",
        "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "GITHUB_TOKEN",
    ]

    /// Whether `name` carries a credential.
    public static func isCredential(_ name: String) -> Bool {
        names.contains(name) || (name.hasPrefix("PIPELINE_") && name.contains("AWS_"))
    }

    /// `variables` without the credentials.
    public static func withheld(from variables: [String: String]) -> [String: String] {
        variables.filter { !isCredential($0.key) }
    }
}
