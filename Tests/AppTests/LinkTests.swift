import Player
import Terminal
import Testing

@Suite("C adapters link and work")
struct LinkTests {
    @Test("libmpv: a headless handle initialises (vo=null, ao=null)")
    func mpv() {
        #expect(MPVInfo.clientAPIVersion.hasPrefix("2."))
        #expect(MPVInfo.canCreateHeadlessHandle())
    }

    @Test("ncursesw reports its version")
    func curses() {
        #expect(CursesInfo.version.hasPrefix("ncurses 6"))
    }
}
