import Foundation
import Testing

@testable import Coverage

@Suite("what a suite's profile says it executed")
struct ImpactRecorderTests {
    @Test("llvm-profdata's listing: the functions with a count above zero")
    func executedFunctions() {
        let listing = """
            Counters:
              $s3App6ParserV5parseySiSSF:
                Hash: 0x0000000000000001
                Counters: 2
                Function count: 3
                Block counts: [1]
              /src/Sources/App/View.swift:$s3App4ViewV4drawyyFyyXEfU_:
                Hash: 0x0000000000000000
                Counters: 2
                Function count: 0
                Block counts: [2]
              $s3App4DeadV4nopeyyF:
                Hash: 0x0000000000000000
                Counters: 1
                Function count: 0
                Block counts: []
            Instrumentation level: Front-end
            """
        #expect(
            ImpactProfiles.executedFunctions(in: listing) == [
                "$s3App6ParserV5parseySiSSF", "/src/Sources/App/View.swift:$s3App4ViewV4drawyyFyyXEfU_",
            ])
    }
}
