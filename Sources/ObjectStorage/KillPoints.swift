import Foundation

/// The folder store's kill points, for `scripts/bench-kill.sh`: in debug builds only, each file
/// operation that changes the store is counted (`PIPELINE_TEST_COUNT_WRITES=FILE` appends a line
/// per operation), and with `PIPELINE_TEST_KILL_AFTER=K` the process kills itself (SIGKILL) right
/// after the K-th. A release build (what users install) has neither.
public enum KillPoints {
    #if DEBUG
        private static let counter = Counter()

        public static func passed(_ operation: String) async {
            await counter.passed(operation)
        }

        private actor Counter {
            let variables = ProcessInfo.processInfo.environment
            var count = 0

            func passed(_ operation: String) {
                count += 1
                if let file = variables["PIPELINE_TEST_COUNT_WRITES"],
                    let handle = FileHandle(forWritingAtPath: file) ?? create(file)
                {
                    handle.seekToEndOfFile()
                    handle.write(Data("\(count) \(operation)\n".utf8))
                    try? handle.close()
                }
                if let limit = variables["PIPELINE_TEST_KILL_AFTER"].flatMap(Int.init), count >= limit {
                    kill(getpid(), SIGKILL)
                }
            }

            private func create(_ file: String) -> FileHandle? {
                _ = FileManager.default.createFile(atPath: file, contents: nil)
                return FileHandle(forWritingAtPath: file)
            }
        }
    #else
        @inline(__always) public static func passed(_ operation: @autoclosure () -> String) async {}
    #endif
}
