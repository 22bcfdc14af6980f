import Testing

@testable import MediaFormats

/// The closed-caption decoders (CEA-608-E, CTA-708-E) and writers: what each writer sends decodes back to its text, and the
/// decoders keep a decoder's memories, channels and windows apart.
@Suite("Closed captions: CEA-608 and CEA-708 decoders and writers")
struct CaptionDecoderTests {
    // MARK: CEA-608

    @Test("a pop-on caption written for each of CC1–CC4 decodes back to its text on that channel only", arguments: 1...4)
    func roundTrip608(channel: Int) {
        let text = "Caption ♪ café\nÑandú * {x} ½ 100%"
        let sent = CEA608.triplets(popOn: text, channel: channel)
        #expect(sent.allSatisfy { $0.type == (channel <= 2 ? 0 : 1) }, "field 1 for CC1/CC2, field 2 for CC3/CC4")
        #expect(sent[0].first & 0x7F == (channel % 2 == 1 ? 0x14 : 0x1C), "channel 2's control codes start at 0x18")
        for other in 1...4 {
            #expect(decode608(sent, channel: other) == (other == channel ? text : ""), "CC\(other)")
        }
        #expect(decode608(sent + CEA608.triplets(clear: channel), channel: channel) == "")
    }

    @Test("the origin's Pair captions decode back: pop-on on row 15, then cleared")
    func pairsRoundTrip() {
        let sent = CEA608.popOn("CC1 segment 7").map(\.triplet)
        #expect(decode608(sent, channel: 1) == "CC1 segment 7")
        #expect(decode608(sent + CEA608.clear.map(\.triplet), channel: 1) == "")
    }

    @Test("pop-on: nothing shown until end of caption; a second caption replaces the first whole; EDM clears it")
    func popOnTiming() {
        let first = CEA608.triplets(popOn: "a longer first caption", channel: 1)
        var d = CEA608Decoder(channel: 1)
        for t in first.dropLast(2) { d.feed(t) }
        #expect(d.text == "", "loaded, not shown")
        d.feed(first[first.count - 2])
        #expect(d.text == "a longer first caption", "the first end of caption shows it")
        for t in CEA608.triplets(popOn: "second", channel: 1) { d.feed(t) }
        #expect(d.text == "second", "the memory loaded is erased first: nothing left of the first")
        for t in ctl(0x14, 0x2C) { d.feed(t) }
        #expect(d.text == "")
    }

    @Test("roll-up of two rows: each carriage return scrolls, the top row leaves the window")
    func rollUp() {
        var d = CEA608Decoder(channel: 1)
        for t in ctl(0x14, 0x25) + chars("one") { d.feed(t) }
        #expect(d.text == "one", "roll-up text shows as it arrives")
        for t in ctl(0x14, 0x2D) + chars("two") { d.feed(t) }
        #expect(d.text == "one\ntwo")
        for t in ctl(0x14, 0x2D) + chars("three") { d.feed(t) }
        #expect(d.text == "two\nthree", "two rows: the first scrolled away")
        // A preamble address code moves the base row (and the window with it) to row 5.
        for t in ctl(0x15, 0x40) + chars("!") { d.feed(t) }
        #expect(d.text == "two\n!hree")
        for t in ctl(0x14, 0x20) + ctl(0x14, 0x2F) { d.feed(t) }
        #expect(d.text == "", "end of caption in pop-on swaps in the empty memory")
    }

    @Test("paint-on: shown as written, at the preamble's indent; tab offsets, backspace, delete to end of row")
    func paintOn() {
        var d = CEA608Decoder(channel: 1)
        // RDC, row 1 indent 4 (Table 53: 0x11 0x52), "Hi", TO2, "x".
        for t in ctl(0x14, 0x29) + ctl(0x11, 0x52) + chars("Hi") + ctl(0x17, 0x22) + chars("x") { d.feed(t) }
        #expect(d.text == "    Hi  x")
        for t in ctl(0x14, 0x21) { d.feed(t) }
        #expect(d.text == "    Hi", "backspace erases the x")
        // Row 14 (0x14 0x40) under it; a mid-row code (0x11 0x2E) shows as a space; DER from column 2.
        for t in ctl(0x14, 0x40) + chars("ab") + ctl(0x11, 0x2E) + chars("cd") { d.feed(t) }
        #expect(d.text == "    Hi\nab cd")
        for t in ctl(0x14, 0x40) + chars("AB") + ctl(0x14, 0x24) { d.feed(t) }
        #expect(d.text == "    Hi\nAB")
        for t in ctl(0x14, 0x2C) { d.feed(t) }
        #expect(d.text == "")
    }

    @Test("special and extended characters: the pair after a standard one replaces it; channel 2's codes too", arguments: [1, 2])
    func characters(channel: Int) {
        let c: UInt8 = channel == 2 ? 0x08 : 0
        // *\^_`{|}~ and DEL are CEA-608's own letters and signs.
        var sent = ctl(0x14 | c, 0x29) + ctl(0x14 | c, 0x60) + chars("*\\^_`{|}~\u{7F}")
        sent += ctl(0x11 | c, 0x37) + ctl(0x11 | c, 0x34) // ♪ ™
        sent += chars("A") + ctl(0x12 | c, 0x20) + chars("s") + ctl(0x13 | c, 0x34) // A→Á, s→ß
        sent += chars("o") + ctl(0x13 | c, 0x3B) + ctl(0x13 | c, 0x3F) // o→ø, then ┘ replaces ø
        #expect(decode608(sent, channel: channel) == "áéíóúç÷Ññ█♪™Áß┘")
        #expect(decode608(sent, channel: 3 - channel) == "", "the other data channel shows none of it")
    }

    @Test("CC1, CC2 and CC3 captions interleaved in one stream (with XDS in field 2): each decoder shows its own only")
    func interleaved() {
        let one = runs(CEA608.triplets(popOn: "one", channel: 1))
        let two = runs(CEA608.triplets(popOn: "two", channel: 2))
        var three = CEA608.triplets(popOn: "three", channel: 3)
        // An XDS packet (start, two bytes, end and checksum) in field 2 before CC3's end of caption.
        three.insert(contentsOf: [p608(0x01, 0x03, field: 1), p608(0x41, 0x42, field: 1), p608(0x0F, 0x1C, field: 1)], at: three.count - 2)
        var field1: [CCTriplet] = []
        for k in 0..<max(one.count, two.count) {
            if k < one.count { field1 += one[k] }
            if k < two.count { field1 += two[k] }
        }
        var stream: [CCTriplet] = []
        for k in 0..<max(field1.count, three.count) {
            if k < field1.count { stream.append(field1[k]) }
            if k < three.count { stream.append(three[k]) }
        }
        #expect(decode608(stream, channel: 1) == "one")
        #expect(decode608(stream, channel: 2) == "two")
        #expect(decode608(stream, channel: 3) == "three")
        #expect(decode608(stream, channel: 4) == "")
    }

    @Test("a control code repeated in the next pair is acted on once; a third copy is a new code")
    func repeatedControlCodes() {
        var d = CEA608Decoder(channel: 1)
        for t in ctl(0x14, 0x29) + ctl(0x14, 0x70) + chars("abcd") + ctl(0x14, 0x21) { d.feed(t) }
        #expect(d.text == "abc", "BS sent twice: one character erased")
        for t in ctl(0x14, 0x21) + ctl(0x14, 0x21) { d.feed(t) }
        #expect(d.text == "a", "four copies: two backspaces")
        d.feed(p608(0x14, 0x21, field: 1))
        d.feed(CCTriplet(type: 0, valid: false, 0x94, 0x21))
        #expect(d.text == "a", "another field's BS and an invalid one are ignored")
        d.feed(p608(0x14, 0x21))
        #expect(d.text == "", "a single BS acts")
    }

    // MARK: CEA-708

    @Test("a pop-on caption written for services 1, 2 and 63 (extended header) decodes back to its text", arguments: [1, 2, 63])
    func roundTrip708(service: Int) {
        let text = "Hello ♪ café…\n™ Œuvre"
        let blocks = CEA708.popOn(text, service: service)
        #expect(blocks[0] >> 5 == (service < 7 ? UInt8(service) : 7))
        if service >= 7 { #expect(blocks[1] == UInt8(service), "the extended service number") }
        var sequence = 0
        let frames = CEA708.packets(blocks, sequence: &sequence)
        #expect(frames.allSatisfy { $0.count <= 10 })
        for other in [1, 2, 63] {
            #expect(decode708(frames, service: other) == (other == service ? text : ""), "service \(other)")
        }
        var cleared = sequence
        let clear = CEA708.packets(CEA708.clear(service: service), sequence: &cleared)
        #expect(decode708(frames + clear, service: service) == "")
        #expect(cleared == (sequence + 1) % 4, "one packet, the sequence number advanced")
    }

    @Test("packets: the size code counts pairs (0 for 64), an even length, whole service blocks, sequence modulo 4")
    func packets() {
        // 40 blocks of 4 commands bytes: 200 bytes, two packets of 125 and 75 bytes of blocks.
        let blocks = (0..<40).flatMap { _ in CEA708.serviceBlock(service: 1, [0x41, 0x42, 0x43, 0x44]) }
        #expect(blocks.count == 200)
        var sequence = 3
        let triplets = CEA708.packets(blocks, sequence: &sequence, perFrame: 7).flatMap { $0 }
        #expect(sequence == 1)
        let starts = triplets.indices.filter { triplets[$0].type == 3 }
        #expect(starts == [0, 63])
        #expect(triplets[0].first == 0xC0 | 63, "sequence 3; 1 + 125 bytes padded to 126: 63 pairs")
        #expect(triplets[63].first == 0x00 | 38, "sequence 0; 1 + 75 bytes: 38 pairs")
        #expect(triplets.count == 63 + 38)
        // Commands longer than a block are cut between commands.
        let long = CEA708.serviceBlock(service: 2, Array(repeating: 0x41, count: 29) + [0x92, 0x01, 0x02])
        #expect(long[0] == 0x40 | 29 && long[30] == 0x40 | 3, "the three-byte SPL does not cross blocks")
    }

    @Test("a packet split over frames shows once complete; one cut short by the next start keeps what was complete")
    func splitAndCutPackets() {
        var sequence = 0
        let frames = CEA708.packets(CEA708.popOn("split over frames", service: 1), sequence: &sequence, perFrame: 2)
        #expect(frames.count > 3)
        #expect(decode708(Array(frames.dropLast()), service: 1) == "", "not all there yet")
        #expect(decode708(frames, service: 1) == "split over frames")

        let first = CEA708.packets(CEA708.popOn("first", service: 1), sequence: &sequence).flatMap { $0 }
        let cut = CEA708.packets(CEA708.popOn("second", service: 1, window: 1), sequence: &sequence).flatMap { $0 }.prefix(3)
        let third = CEA708.packets(CEA708.popOn("third", service: 1, window: 2), sequence: &sequence).flatMap { $0 }
        #expect(decode708([first + cut + third], service: 1) == "first\nthird")
        #expect(decode708([first + cut], service: 1) == "first", "a packet never completed is not read")
    }

    @Test("window commands: hidden, toggled, cleared, a higher priority first, CR scrolls, G2 and G1 characters")
    func windows() {
        var commands: [UInt8] = [0x99, 0x23, 0, 0, 0x01, 0x09, 0x09] // window 1: visible, priority 3, 2 rows, 10 columns
        commands += Array("a".utf8) + [0x0D] + Array("b".utf8) + [0x0D] + Array("c".utf8) // CR from the last row scrolls
        commands += [0x98, 0x21, 0, 0, 0x00, 0x09, 0x09] + [0x10, 0x39, 0x10, 0x3F, 0xE9, 0x7F] // window 0: ™Ÿé♪
        commands += [0x90, 0x00, 0x00, 0x91, 0, 0, 0, 0x97, 0, 0, 0, 0, 0x10, 0x08, 0x00, 0x10, 0x90, 0x02, 0, 0] // no text
        #expect(decode708(service1(commands), service: 1) == "™Ÿé♪\nb\nc", "priority 1 before 3; skipped codes show nothing")
        #expect(decode708(service1(commands + [0x8A, 0x01]), service: 1) == "b\nc", "HDW window 0")
        #expect(decode708(service1(commands + [0x8B, 0x03]), service: 1) == "", "TGW both")
        #expect(decode708(service1(commands + [0x88, 0x02]), service: 1) == "™Ÿé♪", "CLW window 1")
        #expect(decode708(service1(commands + [0x81, 0x0E, 0x41]), service: 1) == "™Ÿé♪\nb\nA", "CW1, HCR, A")
        #expect(decode708(service1(commands + [0x8F]), service: 1) == "", "RST")
    }

    @Test("CaptionDecoder: the channel an INSTREAM-ID names, fed picture by picture; reset forgets")
    func captionDecoder() throws {
        var sequence = 0
        let samples = CEA708.packets(CEA708.popOn("seven o8", service: 5), sequence: &sequence)
            .enumerated().map { CaptionSample(time: Double($0.offset) / 30, triplets: $0.element) }
        let cc3 = CaptionSample(time: 0, triplets: CEA608.triplets(popOn: "three", channel: 3))
        var service = CaptionDecoder(channel: try #require(CaptionChannel(instreamID: "SERVICE5")))
        var channel = CaptionDecoder(channel: try #require(CaptionChannel(instreamID: "CC3")))
        for s in [cc3] + samples {
            service.feed(s)
            channel.feed(s)
        }
        #expect(service.text == "seven o8" && channel.text == "three")
        service.reset()
        channel.reset()
        #expect(service.text == "" && channel.text == "")
    }

    @Test("captions of every kind put into H.264 (CC1, CC3, service 1) come back out of its SEIs, each on its channel")
    func throughSEI() {
        let cc1 = CEA608.triplets(popOn: "field one", channel: 1)
        let cc3 = CEA608.triplets(popOn: "field two", channel: 3)
        var sequence = 0
        let dtvcc = CEA708.packets(CEA708.popOn("service one", service: 1), sequence: &sequence)
        let frames = max(cc1.count, cc3.count, dtvcc.count) + 1
        var schedule: [Int: [CCTriplet]] = [:]
        for k in 0..<frames where k < cc1.count || k < cc3.count || k < dtvcc.count {
            schedule[k] = (k < cc1.count ? [cc1[k]] : []) + (k < cc3.count ? [cc3[k]] : []) + (k < dtvcc.count ? dtvcc[k] : [])
        }
        let stream = CEA608.inserting(triplets: schedule, into: Array((0..<frames).map { _ in [0, 0, 0, 1, 0x41, 0x9A] }.joined()))
        let read = ccData(stream)
        #expect(read.count == frames)
        #expect(read.last == [CEA608.Pair.padding.triplet], "a frame with nothing scheduled: one padding triplet")
        var decoders = ["CC1", "CC3", "SERVICE1", "CC2"].map { CaptionDecoder(channel: CaptionChannel(instreamID: $0)!) }
        for triplets in read {
            for k in decoders.indices { decoders[k].feed(CaptionSample(time: 0, triplets: triplets)) }
        }
        #expect(decoders.map(\.text) == ["field one", "field two", "service one", ""])
    }

    // MARK: Anything at all

    @Test("thousands of pseudo-random triplets (seeded) never trap a decoder, and what is shown stays within the screen")
    func fuzz() {
        var rng = SplitMix(seed: 0x608_708)
        var d608 = (1...4).map { CEA608Decoder(channel: $0) }
        var d708 = [1, 2, 7, 63].map { CEA708Decoder(service: $0) }
        for round in 0..<6000 {
            let r = rng.next()
            // Half the time a control code's first byte, so preamble, mid-row and command codes come up often.
            let first = round % 2 == 0 ? UInt8(0x10 + r % 16) : UInt8(truncatingIfNeeded: r >> 8)
            let t = CCTriplet(type: UInt8(r >> 16 & 3), valid: r >> 18 & 7 != 0, first, UInt8(truncatingIfNeeded: r >> 24))
            for k in d608.indices { d608[k].feed(t) }
            for k in d708.indices { d708[k].feed(t) }
        }
        // Random commands inside well-formed packets reach every command of a service.
        for _ in 0..<300 {
            let commands = (0..<Int(rng.next() % 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            var sequence = 0
            for frame in CEA708.packets(CEA708.serviceBlock(service: 1, commands), sequence: &sequence) {
                for t in frame { d708[0].feed(t) }
            }
        }
        for d in d608 {
            let rows = d.text.split(separator: "\n")
            #expect(rows.count <= 15 && rows.allSatisfy { $0.count <= 32 }, "CC\(d.channel): \(d.text)")
        }
        for d in d708 {
            let rows = d.text.split(separator: "\n")
            #expect(rows.count <= 8 * 16 && rows.allSatisfy { $0.count <= 64 }, "service \(d.service)")
        }
        #expect(d708[0].text != "" || d608.contains { $0.text != "" }, "some of it was shown")
    }
}

// MARK: Helpers

private func p608(_ a: UInt8, _ b: UInt8, field: UInt8 = 0) -> CCTriplet {
    CCTriplet(type: field, CEA608.parity(a), CEA608.parity(b))
}

/// A control code pair sent twice, as encoders do.
private func ctl(_ a: UInt8, _ b: UInt8, field: UInt8 = 0) -> [CCTriplet] { [p608(a, b, field: field), p608(a, b, field: field)] }

/// Standard characters two a pair (a null after an odd one).
private func chars(_ s: String, field: UInt8 = 0) -> [CCTriplet] {
    var bytes = s.unicodeScalars.map { UInt8($0.value) }
    if bytes.count % 2 == 1 { bytes.append(0) }
    return stride(from: 0, to: bytes.count, by: 2).map { p608(bytes[$0], bytes[$0 + 1], field: field) }
}

private func decode608(_ triplets: [CCTriplet], channel: Int) -> String {
    var d = CEA608Decoder(channel: channel)
    for t in triplets { d.feed(t) }
    return d.text
}

private func decode708(_ frames: [[CCTriplet]], service: Int) -> String {
    var d = CEA708Decoder(service: service)
    for t in frames.joined() { d.feed(t) }
    return d.text
}

private func service1(_ commands: [UInt8]) -> [[CCTriplet]] {
    var sequence = 0
    return CEA708.packets(CEA708.serviceBlock(service: 1, commands), sequence: &sequence)
}

/// A channel's triplets in runs that each start at a control code, where another channel's may come in between.
private func runs(_ triplets: [CCTriplet]) -> [[CCTriplet]] {
    var out: [[CCTriplet]] = []
    for (k, t) in triplets.enumerated() {
        let control = (0x10...0x1F).contains(t.first & 0x7F)
        let repeated = k > 0 && triplets[k - 1] == t
        if out.isEmpty || (control && !repeated) { out.append([t]) } else { out[out.count - 1].append(t) }
    }
    return out
}

/// The `cc_data` triplets of each caption SEI in an Annex B stream (payload size under 255, as `CEA608.sei` writes it).
private func ccData(_ stream: [UInt8]) -> [[CCTriplet]] {
    CEA608.nalUnits(stream).filter { $0.first == 0x06 }.map { nal in
        var rbsp: [UInt8] = []
        var zeros = 0
        for b in nal {
            if zeros >= 2 && b == 3 {
                zeros = 0
                continue
            }
            rbsp.append(b)
            zeros = b == 0 ? zeros + 1 : 0
        }
        // NAL header, payload type, size, the 8-byte A/53 header, flags, em_data, then the triplets.
        let count = Int(rbsp[11] & 0x1F)
        return CCTriplet.parse(Array(rbsp[13..<(13 + 3 * count)]))
    }
}

/// A seeded generator (SplitMix64), the same numbers on every run.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
