// libFuzzer entry point: feeds arbitrary bytes to every media parser the network reaches — MPEG-TS (PAT, PMT, PES, the
// first access unit, decode times, timed ID3), H.264 parameter sets (Annex B, avcC, the SPS and its VUI), HEVC (hvcC, the
// SPS), Dolby Vision (dvcC), audio codecs (ADTS, esds, packed audio), fragmented MP4
// (boxes, tracks, runs, emsg, timed text) and SCTE-35 — as `inspect --media`, the Loader and the session read them.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMedia(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // MPEG-TS.
    _ = TransportStream.probe(bytes)
    _ = TransportStream.looksValid(bytes)
    _ = TransportStream.firstSectionIsIntact(bytes)
    _ = TransportStream.opensIndependently(bytes)
    _ = TransportStream.videoDuration(bytes)
    _ = TransportStream.videoPESStarts(bytes, videoPID: 256)
    _ = TransportStream.timedID3(bytes)
    if let au = TransportStream.firstVideoAccessUnit(bytes), let sps = H264.firstSPS(annexB: au.payload) { _ = SPS(nal: sps) }
    // H.264 in Annex B and in an avcC, the SPS read on its own.
    _ = H264.codecString(annexB: bytes)
    _ = H264.codecString(initSection: bytes)
    _ = H264.nalTypes(annexB: bytes)
    _ = H264.nalTypes(annexB: bytes, hevc: true)
    if let sps = H264.firstSPS(annexB: bytes) { _ = SPS(nal: sps) }
    if let sps = H264.firstSPS(initSection: bytes) { _ = SPS(nal: sps) }
    _ = SPS(nal: [0x67] + bytes)
    // HEVC and Dolby Vision (hvcC, the SPS, dvcC), and the audio codecs (ADTS, esds, packed audio, TS stream types).
    _ = HEVC.codecString(annexB: bytes)
    _ = HEVC.codecString(initSection: bytes)
    _ = HEVC.codecString(fourcc: "hvc1", profileTierLevel: bytes)
    _ = DolbyVision.codecs(initSection: bytes)
    _ = AudioCodecs.transportStream(bytes)
    _ = AudioCodecs.initSection(bytes)
    _ = AudioCodecs.packed(bytes)
    // Fragmented MP4: an init section's tracks, then the same bytes as a segment of them.
    _ = FragmentedMP4.boxes(bytes)
    _ = FragmentedMP4.looksValid(bytes)
    let tracks = FragmentedMP4.tracks(initSection: bytes)
    let guessed = tracks.isEmpty ? [MP4Track(id: 1, timescale: 90_000, handler: "vide"), MP4Track(id: 2, timescale: 48_000, handler: "soun")] : tracks
    _ = FragmentedMP4.firstDecodeTimes(segment: bytes)
    _ = FragmentedMP4.firstTimes(segment: bytes, tracks: guessed)
    _ = FragmentSplit.opensWithSync(segment: bytes, tracks: guessed)
    _ = FragmentSplit.videoDuration(segment: bytes, tracks: guessed)
    _ = FragmentSplit.split(segment: bytes, tracks: guessed, at: [0.5, 1])
    _ = EventMessage.all(in: bytes)
    _ = TimedTextMP4.documents(segment: bytes)
    // ID3 and SCTE-35.
    _ = ID3.frames(bytes)
    _ = SCTE35.decode(bytes)
    _ = SCTE35.decode(text: String(decoding: bytes, as: UTF8.self))
    return 0
}
