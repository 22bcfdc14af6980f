import Foundation
import LoaderCore
import Testing

@Suite("SpanSet: the byte ranges a progressive file holds, and how a range is served")
struct SpanSetTests {
    @Test("ranges merge when they overlap or touch, and stay apart otherwise")
    func merging() {
        var s = SpanSet()
        s.insert(10..<20)
        s.insert(30..<40)
        #expect(s.spans == [10..<20, 30..<40])
        s.insert(20..<25)
        #expect(s.spans == [10..<25, 30..<40])
        s.insert(0..<5)
        s.insert(24..<31)
        #expect(s.spans == [0..<5, 10..<40])
        s.insert(0..<100)
        #expect(s.spans == [0..<100] && s.total == 100)
        s.insert(7..<7)
        #expect(s.spans == [0..<100])
        #expect(s.covers(3..<99) && !s.covers(50..<101))
    }

    @Test("a range is served as held runs and fetched gaps, pieces doubling from the first size up to the largest")
    func plan() {
        let s = SpanSet([100..<200, 300..<1000])
        #expect(
            s.plan(0..<1200, first: 64, largest: 256) == [
                .fetch(0..<64), .fetch(64..<100), .held(100..<200), .fetch(200..<300), .held(300..<556), .held(556..<812),
                .held(812..<1000), .fetch(1000..<1200),
            ])
        #expect(SpanSet().plan(0..<10, first: 4, largest: 8) == [.fetch(0..<4), .fetch(4..<10)])
        #expect(s.plan(150..<160, first: 64, largest: 64) == [.held(150..<160)])
        #expect(s.plan(5..<5, first: 64, largest: 64) == [])
    }

    @Test("the record survives encoding (the cache's JSON)")
    func codable() throws {
        let s = SpanSet([0..<10, 20..<30])
        let data = try JSONEncoder().encode(s)
        #expect(try JSONDecoder().decode(SpanSet.self, from: data) == s)
    }
}
