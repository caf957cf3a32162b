import Testing

@testable import PipelineCLI

@Suite("Console: colours by line on a terminal, none elsewhere")
struct ConsoleTests {
    @Test func paintsEachLineByHowItStarts() {
        let text = "error: bad\n✗ A.test failed\nwarning: slow\n==> [1/2] pull: x\n    passed: 3 tests\nplain\n"
        #expect(Console.paint(text, colors: false) == text)
        #expect(
            Console.paint(text, colors: true)
                == "\u{1B}[1;31merror: bad\u{1B}[0m\n\u{1B}[31m✗ A.test failed\u{1B}[0m\n"
                + "\u{1B}[33mwarning: slow\u{1B}[0m\n\u{1B}[1m==> [1/2] pull: x\u{1B}[0m\n"
                + "\u{1B}[32m    passed: 3 tests\u{1B}[0m\nplain\n")
        // A progress line redrawn in place keeps its redraw and is coloured by what it says.
        #expect(Console.paint("\r\u{1B}[2K✗ B failed", colors: true) == "\u{1B}[31m\r\u{1B}[2K✗ B failed\u{1B}[0m")
    }
}
