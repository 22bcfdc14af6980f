/// The player's state as the pane last measured it: what CMCD reports of the buffer, the network and the playback.
public struct CMCDPlayerStatus: Sendable, Equatable {
    /// Seconds of media held ahead of the playhead (the buffer bar's figure); nil when not measured.
    public var bufferAhead: Double?
    /// The throughput estimate, bits/s.
    public var throughput: Int?
    /// The playback rate: 1 real time, 0 paused or stalled.
    public var rate: Double
    /// The highest BANDWIDTH the caps allow, bits/s.
    public var topBitrate: Int?
    /// Startup, a seek or a recovery: the next media is needed at once.
    public var urgent: Bool
    /// Stalls so far: one more than the last media request saw means the buffer ran dry in between.
    public var stalls: Int
    /// Live or VOD, once a playlist said.
    public var live: Bool?

    public init(
        bufferAhead: Double? = nil, throughput: Int? = nil, rate: Double = 1, topBitrate: Int? = nil, urgent: Bool = true, stalls: Int = 0,
        live: Bool? = nil
    ) {
        self.bufferAhead = bufferAhead
        self.throughput = throughput
        self.rate = rate
        self.topBitrate = topBitrate
        self.urgent = urgent
        self.stalls = stalls
        self.live = live
    }
}
