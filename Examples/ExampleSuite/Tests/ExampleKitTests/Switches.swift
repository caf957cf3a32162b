import Foundation

/// The misbehaving tests are switched on by environment variables, so a plain run passes.
enum Switch {
    static func isOn(_ name: String) -> Bool {
        ProcessInfo.processInfo.environment[name] == "1"
    }

    /// What a text snapshot adds where EXAMPLE_RENDER_ENVIRONMENT names a render environment, as a
    /// platform whose fonts differ would draw differently: `\n  rendered in: NAME`; nothing otherwise.
    static var renderedIn: String {
        ProcessInfo.processInfo.environment["EXAMPLE_RENDER_ENVIRONMENT"].map { "\n  rendered in: \($0)" } ?? ""
    }

    /// Sleeps for a test's nominal duration, scaled by EXAMPLE_TIME_SCALE (default 1).
    static func work(seconds: Double) {
        let scale = ProcessInfo.processInfo.environment["EXAMPLE_TIME_SCALE"].flatMap(Double.init) ?? 1
        Thread.sleep(forTimeInterval: seconds * scale)
    }

    /// Whether a flaky test fails this time. EXAMPLE_FLAKY_RATE=0.3 fails it at random 30 % of the
    /// time. With EXAMPLE_FLAKY_DIR and EXAMPLE_FLAKY_EVERY=k, the n-th run across processes
    /// (counted by marker files created exclusively, from 0) fails when n is a multiple of k.
    /// With EXAMPLE_FLAKY_DIR alone, it fails on the first attempt and passes on the next: the
    /// first call leaves a marker file. Without these variables, the test simply passes.
    static func flakyShouldFail(_ name: String) -> Bool {
        let environment = ProcessInfo.processInfo.environment
        if let rate = environment["EXAMPLE_FLAKY_RATE"].flatMap(Double.init) { return Double.random(in: 0..<1) < rate }
        guard let folder = environment["EXAMPLE_FLAKY_DIR"] else { return false }
        if let every = environment["EXAMPLE_FLAKY_EVERY"].flatMap(Int.init), every > 0 {
            var run = 0
            while true {
                let descriptor = open("\(folder)/\(name).run-\(run)", O_CREAT | O_EXCL | O_WRONLY, 0o644)
                if descriptor >= 0 {
                    close(descriptor)
                    return run % every == 0
                }
                guard errno == EEXIST else { return false }
                run += 1
            }
        }
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
