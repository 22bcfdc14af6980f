/// A closed-caption decoder for one channel as a `CLOSED-CAPTIONS` rendition names it: CEA-608 `CC1`–`CC4`
/// (`CEA608Decoder`) or a CEA-708 service (`CEA708Decoder`), fed the `cc_data` of each picture in order.
public struct CaptionDecoder: Sendable {
    public let channel: CaptionChannel
    private var cea608: CEA608Decoder?
    private var cea708: CEA708Decoder?

    public init(channel: CaptionChannel) {
        self.channel = channel
        // A channel out of range decodes nothing.
        switch channel {
        case .cea608(let n) where (1...4).contains(n): cea608 = CEA608Decoder(channel: n)
        case .cea708(let n) where (1...63).contains(n): cea708 = CEA708Decoder(service: n)
        default: break
        }
    }

    /// Takes one picture's `cc_data`, triplet by triplet.
    public mutating func feed(_ s: CaptionSample) {
        for t in s.triplets { feed(t) }
    }

    public mutating func feed(_ t: CCTriplet) {
        cea608?.feed(t)
        cea708?.feed(t)
    }

    /// The caption shown: the rows on screen, top to bottom, joined by newlines ("" when nothing is).
    public var text: String { cea608?.text ?? cea708?.text ?? "" }

    public mutating func reset() {
        cea608?.reset()
        cea708?.reset()
    }
}
