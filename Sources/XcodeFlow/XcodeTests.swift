import TestRun

/// An Xcode team's tests through the one test flow: a run Xcode made imported (`importRun`), the
/// next run's nodes planned (`xcodePlan`), references recorded through xcodebuild, and the key of a
/// run Xcode would make (`verifiedXcodeRun`). The flow's parts it uses are TestRun's `package` API.
public struct XcodeTests: Sendable {
    let flow: TestFlow
    var request: TestRequest { flow.request }

    public init(_ request: TestRequest) { flow = TestFlow(request) }

    init(_ flow: TestFlow) { self.flow = flow }
}
