/// The segment a low-latency playlist is still publishing, as its parts so far (RFC 8216bis §4.4.4.9: the parts after the
/// last complete segment belong to the next one; §4.4.5.3: a PART preload hint names the part that follows them).
extension MediaPlaylist {
    /// A live playlist whose server publishes parts and holds blocking reloads (§4.4.3.7, §4.4.3.8, §6.2.5.2): one a client
    /// can follow part by part.
    public var offersParts: Bool {
        isLive && partTarget != nil && serverControl?.canBlockReload == true && !segments.isEmpty
    }

    /// The part hint of the segment in progress (§4.4.5.3), when there is one.
    public var partHint: PreloadHint? { preloadHints.first { $0.type == "PART" } }

    /// The segment after the newest complete one, as far as it is published: its parts listed so far, the PDT, discontinuity
    /// sequence, keys and map it goes on with, and as duration the parts' sum (0 when only its first part is hinted). Nil
    /// when the playlist lists no part of it and hints none, or has ended.
    public var segmentInProgress: Segment? {
        guard isLive, let last = segments.last, !trailingParts.isEmpty || partHint != nil else { return nil }
        var s = Segment(uri: "", duration: trailingParts.reduce(0) { $0 + $1.duration }, mediaSequence: last.mediaSequence + 1)
        s.parts = trailingParts
        s.discontinuity = trailingDiscontinuity
        s.discontinuitySequence = last.discontinuitySequence + (trailingDiscontinuity ? 1 : 0)
        s.keys = trailingKeys ?? last.keys
        s.map = trailingMap ?? last.map
        // §4.4.4.6: its own tag (before its parts), else it starts where the one before it ends, unless a discontinuity lies
        // between.
        s.programDateTime = trailingProgramDateTime
        s.effectiveProgramDateTime =
            trailingProgramDateTime ?? (trailingDiscontinuity ? nil : last.effectiveProgramDateTime?.adding(seconds: last.duration))
        return s
    }

    /// The playlist with its segment in progress listed as a segment as long as its published parts (none when it has no
    /// part yet): where a playhead inside that segment is, and where the live edge is (§6.2.2: the end of the last part).
    public var withSegmentInProgress: MediaPlaylist {
        guard let s = segmentInProgress, !s.parts.isEmpty else { return self }
        return listing(inProgress: s)
    }

    /// The playlist with `s` (the segment in progress, as some reader lists it) after its complete segments, in place of the
    /// trailing parts and the tags before them.
    public func listing(inProgress s: Segment) -> MediaPlaylist {
        var out = self
        out.segments.append(s)
        out.trailingParts = []
        out.trailingKeys = nil
        out.trailingMap = nil
        out.trailingDiscontinuity = false
        out.trailingProgramDateTime = nil
        return out
    }
}

extension MediaPlaylist {
    /// The newest part the playlist lists: the last trailing part of the segment in progress, else the last part of the
    /// newest segment (RFC 8216bis §4.4.5.4 names a rendition's position the same way: LAST-MSN, LAST-PART).
    public var lastPart: (msn: Int, part: Int)? {
        guard let last = segments.last else { return nil }
        if !trailingParts.isEmpty { return (last.mediaSequence + 1, trailingParts.count - 1) }
        return last.parts.isEmpty ? nil : (last.mediaSequence, last.parts.count - 1)
    }

    /// How many parts the furthest-behind rendition report trails this playlist's own newest part (§4.4.5.4: a report
    /// SHOULD name the rendition's newest part as of this playlist); nil without reports or parts. Segments between are
    /// counted at target duration / part target parts each.
    public var renditionReportLag: Int? {
        guard let own = lastPart, let pt = partTarget, pt > 0, let td = targetDuration else { return nil }
        let perSegment = max(1, Int((Double(td) / pt).rounded()))
        let lags = renditionReports.compactMap { r -> Int? in
            guard let msn = r.lastMSN else { return nil }
            let part = r.lastPart ?? (perSegment - 1)
            return (own.msn - msn) * perSegment + own.part - part
        }
        return lags.max()
    }
}
