import Foundation

/// The misbehaving tests are switched on by environment variables, so a plain run passes.
enum Switch {
    static func isOn(_ name: String) -> Bool {
        ProcessInfo.processInfo.environment[name] == "1"
    }

    /// Sleeps for a test's nominal duration, scaled by EXAMPLE_TIME_SCALE (default 1).
    static func work(seconds: Double) {
        let scale = ProcessInfo.processInfo.environment["EXAMPLE_TIME_SCALE"].flatMap(Double.init) ?? 1
        Thread.sleep(forTimeInterval: seconds * scale)
    }

    /// Fails on the first attempt and passes on the next: the first call leaves a marker file
    /// in EXAMPLE_FLAKY_DIR. Without that variable, the test simply passes.
    static func flakyShouldFail(_ name: String) -> Bool {
        guard let folder = ProcessInfo.processInfo.environment["EXAMPLE_FLAKY_DIR"] else { return false }
        let marker = URL(fileURLWithPath: folder).appendingPathComponent("\(name).attempted")
        if FileManager.default.fileExists(atPath: marker.path) { return false }
        FileManager.default.createFile(atPath: marker.path, contents: Data())
        return true
    }

    static func hangIfAsked(_ name: String) {
        guard isOn(name) else { return }
        while true { Thread.sleep(forTimeInterval: 3600) }
    }
}
