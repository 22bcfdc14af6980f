import Testing

@testable import MediaFormats

/// Which caption channels a segment's caption data speaks in (CEA-608-E, CTA-708-E §6.2–6.3): how captions a playlist
/// does not declare are found.
@Suite("Caption channels found in the caption data")
struct CaptionChannelTests {
    static func samples(_ triplets: [CCTriplet]) -> [CaptionSample] {
        triplets.enumerated().map { CaptionSample(time: Double($0.offset) / 30, triplets: [$0.element]) }
    }

    @Test("each CEA-608 channel by its field and the data channel its control codes name; padding, codes alone and XDS say nothing")
    func cea608() {
        for c in 1...4 {
            #expect(CaptionChannel.found(in: Self.samples(CEA608.triplets(popOn: "words", channel: c))) == [.cea608(c)], "CC\(c)")
            #expect(CaptionChannel.found(in: Self.samples(CEA608.triplets(clear: c))).isEmpty, "CC\(c): control codes only")
        }
        let padding = [CCTriplet(type: 0, 0x80, 0x80), CCTriplet(type: 1, 0x80, 0x80)]
        #expect(CaptionChannel.found(in: Self.samples(padding)).isEmpty)
        // XDS in field 2 (a start code, its characters, the end code): not a caption channel.
        let xds = [CCTriplet(type: 1, 0x01, 0x03), CCTriplet(type: 1, 0x41, 0x42), CCTriplet(type: 1, 0x0F, 0x10)]
        #expect(CaptionChannel.found(in: Self.samples(xds)).isEmpty)
        // An invalid triplet's characters count for nothing.
        #expect(
            CaptionChannel.found(
                in: Self.samples([CCTriplet(type: 0, valid: false, 0x14, 0x20), CCTriplet(type: 0, valid: false, 0x41, 0x42)])
            ).isEmpty)
        let mixed = CEA608.triplets(popOn: "one", channel: 1) + CEA608.triplets(popOn: "three", channel: 3)
        #expect(CaptionChannel.found(in: Self.samples(mixed)) == [.cea608(1), .cea608(3)])
    }

    @Test("CEA-708 services with a block in a complete packet, the extended header's too; a packet cut short says nothing")
    func cea708() {
        var sequence = 0
        let one = CEA708.packets(CEA708.popOn("a", service: 1), sequence: &sequence).flatMap { $0 }
        let nine = CEA708.packets(CEA708.popOn("b", service: 9), sequence: &sequence).flatMap { $0 }
        #expect(CaptionChannel.found(in: Self.samples(one + nine)) == [.cea708(1), .cea708(9)])
        let cut = Array(CEA708.packets(CEA708.popOn("a long caption", service: 2), sequence: &sequence).flatMap { $0 }.dropLast(2))
        #expect(CaptionChannel.found(in: Self.samples(cut)).isEmpty, "incomplete: \(cut.count) triplets")
        #expect(CaptionChannel.found(in: Self.samples(cut + one)) == [.cea708(1)], "the next packet's start ends the cut one")
    }

    @Test("channels sort CEA-608 first, then CEA-708, each by number")
    func order() {
        #expect(
            [CaptionChannel.cea708(2), .cea608(3), .cea708(1), .cea608(1)].sorted() == [.cea608(1), .cea608(3), .cea708(1), .cea708(2)])
    }
}
