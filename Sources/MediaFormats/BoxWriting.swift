/// Writing ISO BMFF boxes (ISO/IEC 14496-12 §4.2) and big-endian integers, for what hlstui writes in MP4: the parts the
/// Loader splits a fragment into, the timed text and `emsg` boxes the embedded origin serves. A type that writes boxes
/// conforms and calls these as its own.
protocol BoxWriting {}

extension BoxWriting {
    /// A box: its size, its four-character type, its payload.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload }

    /// A full box: a box whose payload starts with a version and 24 bits of flags (ISO/IEC 14496-12 §4.2).
    static func fullBox(_ type: String, _ version: UInt8, _ flags: UInt32, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version] + be24(flags) + payload)
    }

    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func be24(_ v: UInt32) -> [UInt8] { Array(be32(v).dropFirst()) }
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    static func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xFFFF_FFFF)) }
}

extension FragmentSplit: BoxWriting {}
extension TimedTextMP4: BoxWriting {}
extension EventMessage: BoxWriting {}
