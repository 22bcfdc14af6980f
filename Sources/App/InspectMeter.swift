import Foundation
import HLS
import HLSReport
import MediaFormats

/// One media playlist's segments measured as they are read (`InspectMedia.measure`; on live, each reload's new segments
/// too): their bit rates, the codecs and picture their bytes give, and what each segment's media says (docs/VALIDATION.md).
struct MediaMeter {
    /// The media playlist's URL (its segments' and init sections' base).
    let url: String
    var independentSegments = false
    /// The segments listed (not GAP) over every read, by msn; and how many were taken to be measured.
    var listed: Set<Int> = []
    var taken = 0
    /// The newest msn measured.
    var lastMSN: Int?
    var peak = 0.0
    var peakMSN: Int?
    var bytes = 0
    var seconds = 0.0
    var codec: String?
    var supplemental: String?
    var sampleEntry: String?
    var audioCodec: String?
    var initDescribed = false
    var sps: SPS?
    var measured: [SegmentMeasure] = []
    var tracks: [String: [MP4Track]] = [:]

    init(url: String) { self.url = url }

    /// One segment read and measured: its size from EXT-X-BYTERANGE where it gives it, else from the bytes fetched.
    mutating func add(_ s: Segment, _ req: InspectRequest) async throws(SourceError) {
        taken += 1
        lastMSN = max(lastMSN ?? s.mediaSequence, s.mediaSequence)
        guard s.duration > 0, let u = InspectMedia.resolve(s.uri, against: url) else { return }
        let size: Int
        var seen = SegmentMeasure(msn: s.mediaSequence, duration: s.duration, discontinuity: s.discontinuity)
        if let r = s.byteRange {
            size = r.length
        } else {
            let body = [UInt8](try await InspectMedia.read(u, req))
            size = body.count
            seen.captions = CEA608.present(in: body)
            if s.map == nil, body.first == 0x47, codec == nil || sps == nil, let au = TransportStream.firstVideoAccessUnit(body) {
                // The first video PES reassembled (an SPS may span TS packets), read by its stream type (ISO/IEC 13818-1
                // Table 2-34): H.264 (0x1B) or HEVC (0x24).
                if au.streamType == 0x1B {
                    codec = codec ?? H264.codecString(annexB: au.payload)
                    sps = sps ?? H264.firstSPS(annexB: au.payload).flatMap { SPS(nal: $0) }
                } else if au.streamType == 0x24 {
                    codec = codec ?? HEVC.codecString(annexB: au.payload)
                }
            } else if codec == nil, s.map == nil, body.first != 0x47 {
                codec = H264.codecString(annexB: Array(body.prefix(65_536)))
            }
            if audioCodec == nil, s.map == nil {
                audioCodec = body.first == 0x47 ? AudioCodecs.transportStream(body) : AudioCodecs.packed(Array(body.prefix(4096)))
            }
            if s.map == nil, body.first == 0x47 {
                let info = TransportStream.probe(body)
                seen.videoStart = info.firstVideoPTS.map { Double($0) / 90_000 }
                seen.audioStart = info.firstAudioPTS.map { Double($0) / 90_000 }
                seen.independent = TransportStream.opensIndependently(body)
                seen.videoDuration = TransportStream.videoDuration(body)
            } else if let map = s.map, let mu = InspectMedia.resolve(map.uri, against: url) {
                if tracks[mu] == nil { tracks[mu] = FragmentedMP4.tracks(initSection: [UInt8](try await InspectMedia.read(mu, req))) }
                let t = tracks[mu] ?? []
                (seen.videoStart, seen.audioStart) = FragmentedMP4.firstTimes(segment: body, tracks: t)
                seen.independent = FragmentSplit.opensWithSync(segment: body, tracks: t)
                seen.videoDuration = FragmentSplit.videoDuration(segment: body, tracks: t)
            }
        }
        seen.bitRate = Double(size * 8) / s.duration
        measured.append(seen)
        if !initDescribed, let map = s.map, let mu = InspectMedia.resolve(map.uri, against: url) {
            initDescribed = true
            let initSection = [UInt8](try await InspectMedia.read(mu, req))
            audioCodec = AudioCodecs.initSection(initSection)
            let dolby = DolbyVision.codecs(initSection: initSection)
            codec = dolby?.codec ?? H264.codecString(initSection: initSection) ?? HEVC.codecString(initSection: initSection)
            supplemental = dolby?.supplemental
            sampleEntry = codec.map { String($0.prefix(4)) }
            sps = H264.firstSPS(initSection: initSection).flatMap { SPS(nal: $0) }
        }
        let rate = Double(size * 8) / s.duration
        if rate > peak { (peak, peakMSN) = (rate, s.mediaSequence) }
        bytes += size
        seconds += s.duration
    }

    /// What was measured, as a variant's measure (its name, index and declarations are the caller's).
    var result: VariantMeasure {
        var v = VariantMeasure(
            index: 0, name: "", measured: taken, listed: listed.count, peak: peak, average: seconds > 0 ? Double(bytes * 8) / seconds : 0)
        apply(to: &v)
        return v
    }

    /// `v`'s measured figures replaced by this meter's (what it declares kept).
    func apply(to v: inout VariantMeasure) {
        (v.measured, v.listed, v.peak, v.average) = (taken, listed.count, peak, seconds > 0 ? Double(bytes * 8) / seconds : 0)
        v.peakMSN = peakMSN
        v.videoCodec = codec
        v.supplementalVideoCodec = supplemental
        v.audioCodec = audioCodec
        v.sampleEntry = sampleEntry
        v.sps = sps
        v.segments = measured
        v.independentSegments = v.independentSegments || independentSegments
    }
}
