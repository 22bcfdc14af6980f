import Testing
@testable import Session

@Suite("Commands as script lines: what a recording keeps reads back as the same command (pure)")
struct ActionWordsTests {
    static let all: [Action] = [
        .togglePause, .seekRelative(5), .seekRelative(-2.5), .seekTo(20), .seekTo(12.5), .pin(2), .automatic, .capHeight(360),
        .capHeight(nil), .capDown, .capUp, .capBitrate(2_000_000), .capBitrate(nil), .bitrateDown, .bitrateUp, .switchMode(.smooth),
        .switchMode(.immediate), .toggleSwitchMode, .toggleSync, .syncReference(1), .quit,
    ]

    @Test("every command round-trips through its words", arguments: all)
    func roundTrip(_ a: Action) {
        let words = a.words()
        #expect(Action.parse(words.split(separator: " ")) == a, "\(words)")
    }

    @Test("the focused pane's reference names that pane")
    func focusedReference() {
        #expect(Action.syncReference(nil).words(focus: 2) == "reference 3")
        #expect(Action.parse("reference 3".split(separator: " ")) == .syncReference(2))
    }
}
