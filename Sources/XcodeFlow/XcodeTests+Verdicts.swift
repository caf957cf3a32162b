import References
import Verdicts
import XcodeResults

extension XcodeTests {
    /// The key of a run Xcode made of this checkout (`pipeline import`, `pipeline verdict --xcode`):
    /// the checkout's parts, and `xcodebuild -version`, the scheme and the destination the
    /// workflow's variables name (`PIPELINE_XCODE_SCHEME`, `PIPELINE_XCODE_DESTINATION`); nil, and
    /// why, when it cannot stand for another run.
    func xcodeVerdictKey() async throws -> VerdictKey? {
        guard request.verdicts != nil else { return nil }
        guard request.limits.node == .whole || request.shared.queue != nil else {
            return flow.verdictsNotUsed("this import is one node's part, with no --queue to keep the run's key in")
        }
        // The products a workflow builds into the checkout (`-derivedDataPath DerivedData`) are outputs too.
        guard var key = try await flow.checkoutKey(outputs: [".build", "DerivedData"]) else { return nil }
        guard let xcode = await Xcodebuild.versionDescription.value else {
            return flow.verdictsNotUsed("'xcodebuild -version' cannot be run here")
        }
        let variables = request.shared.variables
        key.xcode = [
            xcode, "scheme \(variables["PIPELINE_XCODE_SCHEME"] ?? "")",
            "destination \(variables[RenderEnvironment.destinationVariable] ?? "")",
        ]
        return key
    }

    /// `pipeline verdict --xcode`: `verifiedRun(notedOnly:)` with the key of a run Xcode would make.
    public func verifiedXcodeRun(notedOnly: Bool) async throws -> Verdict? {
        try await flow.verifiedRun(notedOnly: notedOnly) { try await xcodeVerdictKey() }
    }
}
