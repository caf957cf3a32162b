import ExampleKit
import Testing

@Suite struct MatchRatioTests {
    @Test func identicalImagesMatchFully() {
        #expect(Thumbnail(width: 3, height: 3).matchRatio(Thumbnail(width: 3, height: 3)) == 1)
    }

    @Test(arguments: [1, 2, 3, 4])
    func scalingKeepsTheMatch(factor: Int) {
        Switch.work(seconds: 0.15)
        let image = Thumbnail(width: 2, height: 2, fill: 9)
        #expect(image.scaled(by: factor).matchRatio(Thumbnail(width: 2 * factor, height: 2 * factor, fill: 9)) == 1)
    }

    @Test("Names with regex characters: (a|b) [c] +? ^$ work")
    func regexCharactersInTheName() {
        #expect(Thumbnail(width: 0, height: 0).matchRatio(Thumbnail(width: 0, height: 0)) == 1)
    }

    @Test func スナップショットが一致すること() {
        Switch.work(seconds: 0.5)
        #expect(Thumbnail(width: 2, height: 2, fill: 1) == Thumbnail(width: 2, height: 2, fill: 1))
    }

    @Test func slowComparison() {
        Switch.work(seconds: 1.2)
        #expect(Thumbnail(width: 64, height: 64).matchRatio(Thumbnail(width: 64, height: 64, fill: 1)) == 0)
    }
}

@Suite struct SwiftTestingFaults {
    @Test func hangsWhenAsked() {
        Switch.hangIfAsked("EXAMPLE_TESTING_HANG")
    }

    @Test func crashesWhenAsked() {
        if Switch.isOn("EXAMPLE_TESTING_CRASH") {
            fatalError("EXAMPLE_TESTING_CRASH=1 makes this test crash")
        }
    }

    @Test func flakyWhenAsked() {
        #expect(!Switch.flakyShouldFail("SwiftTestingFaults.flakyWhenAsked"), "fails on its first attempt")
    }
}

@Test func freeStandingTest() {
    #expect(Thumbnail(width: 1, height: 1, fill: 3).pixels == [3])
}
