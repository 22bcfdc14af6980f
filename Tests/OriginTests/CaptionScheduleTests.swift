import Testing

@testable import MediaFormats
@testable import Origin

/// The captions the origin writes into its plain ladder's video, read back as a decoder of each channel sees them
/// (docs/ORIGIN.md): the caption of every segment shown on the frame at `shownAt` and gone from the frame at `clearedAt`.
@Suite("The origin's caption schedule, decoded")
struct CaptionScheduleTests {
    @Test(
        "CC1, CC3 and 708 service 1: each segment's caption appears on its frame and clears on its frame",
        arguments: CaptionSchedule.channels)
    func decoded(channel: CaptionChannel) {
        let fps = 30.0
        let perSegment = 60
        let schedule = CaptionSchedule.triplets(frames: perSegment * 3, perSegment: perSegment, fps: fps)
        #expect(schedule.values.allSatisfy { $0.first?.type == 0 }, "every frame's data starts with a field-1 pair")
        var decoder = CaptionDecoder(channel: channel)
        var changes: [(frame: Int, text: String)] = []
        for frame in 0..<(perSegment * 3) {
            for t in schedule[frame] ?? [] { decoder.feed(t) }
            if decoder.text != (changes.last?.text ?? "") { changes.append((frame, decoder.text)) }
        }
        let expected = (0..<3).flatMap { n in
            [
                (n * perSegment + Int(CaptionSchedule.shownAt * fps), CaptionSchedule.text(segment: n, channel: channel)),
                (n * perSegment + Int(CaptionSchedule.clearedAt * fps), ""),
            ]
        }
        #expect(changes.map(\.frame) == expected.map(\.0) && changes.map(\.text) == expected.map(\.1), "\(changes)")
    }
}
