import CMPV
import Foundation
import NIOConcurrencyHelpers
import JSONValue

/// A property value as libmpv delivered it; `.none` means unavailable (MPV_FORMAT_NONE).
public enum MPVValue: Sendable, Equatable {
    case none
    case flag(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case node(JSONValue)

    /// The value as a double when it is numeric.
    public var double: Double? {
        switch self {
        case .double(let d): return d
        case .int(let i): return Double(i)
        case .node(let n): return n.doubleValue
        default: return nil
        }
    }

    /// The value as a string when it is one.
    public var string: String? {
        switch self {
        case .string(let s): return s
        case .node(.string(let s)): return s
        default: return nil
        }
    }

    /// The value as a flag when it is one.
    public var flag: Bool? {
        switch self {
        case .flag(let b): return b
        case .node(.bool(let b)): return b
        default: return nil
        }
    }

    /// The value as JSON.
    public var json: JSONValue {
        switch self {
        case .none: return .null
        case .flag(let b): return .bool(b)
        case .int(let i): return .int(Int(i))
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .node(let n): return n
        }
    }
}

/// A decoded video frame copied out of libmpv: `format` "bgr0" (4 bytes a pixel, blue first), rows `stride` bytes apart.
public struct VideoFrame: Sendable {
    public var width: Int
    public var height: Int
    public var stride: Int
    public var format: String
    public var bytes: [UInt8]
}

/// Something that happened inside libmpv, copied out of the event before the next wait (DECISIONS.md, one pump thread per handle).
public enum MPVEvent: Sendable {
    case property(id: UInt64, name: String, value: MPVValue)
    case log(level: String, prefix: String, text: String)
    case startFile
    case fileLoaded
    case playbackRestart
    case seek
    /// The file ended; `error` is libmpv's description when it ended in an error.
    case endFile(reason: MPVEndReason, error: String?)
    case commandReply(id: UInt64, error: String?)
    case shutdown
}

/// A libmpv failure with libmpv's own words.
public struct MPVError: Error, CustomStringConvertible, Sendable {
    public var code: Int32
    public var context: String
    public var description: String { "\(context): \(String(cString: mpv_error_string(code)))" }
}

/// The wire format used when observing a property.
public enum MPVFormat: Sendable {
    case flag, int, double, string, node

    var c: mpv_format {
        switch self {
        case .flag: return MPV_FORMAT_FLAG
        case .int: return MPV_FORMAT_INT64
        case .double: return MPV_FORMAT_DOUBLE
        case .string: return MPV_FORMAT_STRING
        case .node: return MPV_FORMAT_NODE
        }
    }
}

/// One libmpv handle: options, commands and property access from any thread; one pump thread drains `mpv_wait_event`.
public final class MPV: @unchecked Sendable {
    // The handle is only destroyed after the pump thread has seen MPV_EVENT_SHUTDOWN, so every call before `close` is safe.
    private let handle: OpaquePointer
    public let events: AsyncStream<MPVEvent>
    private let continuation: AsyncStream<MPVEvent>.Continuation
    private let pumpDone = DispatchSemaphore(value: 0)
    /// Whether `close` has begun; held for each call on the handle (`withHandle`).
    private let closed = NIOLockedValueBox(false)

    /// Handles of this process initialised and not yet closed. libmpv gives FFmpeg's log to the first player handle of a
    /// process only (its `init_libav`), so while more than one is open an `ffmpeg/…` line may be any player's
    /// (docs/MESSAGES.md).
    public static var openHandles: Int { openCount.withLockedValue { $0 } }
    private static let openCount = NIOLockedValueBox(0)
    private static func count(_ delta: Int) { openCount.withLockedValue { $0 += delta } }

    /// Creates, configures (`options` in order, before initialisation) and initialises a handle, and starts its pump.
    public init(options: [(String, String)], logLevel: String = "warn") throws(MPVError) {
        guard let h = mpv_create() else { throw MPVError(code: MPV_ERROR_NOMEM.rawValue, context: "mpv_create") }
        handle = h
        for (name, value) in [
            ("terminal", "no"), ("config", "no"), ("input-default-bindings", "no"), ("input-vo-keyboard", "no"), ("osc", "no"),
        ] + options {
            let rc = mpv_set_option_string(h, name, value)
            if rc < 0 {
                mpv_terminate_destroy(h)
                throw MPVError(code: rc, context: "option \(name)=\(value)")
            }
        }
        let rc = mpv_initialize(h)
        if rc < 0 {
            mpv_terminate_destroy(h)
            throw MPVError(code: rc, context: "mpv_initialize")
        }
        mpv_request_log_messages(h, logLevel)
        Self.count(1)
        (events, continuation) = AsyncStream<MPVEvent>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let thread = Thread { [handle = UncheckedHandle(pointer: h), continuation, pumpDone] in
            MPV.pump(handle.pointer, continuation)
            pumpDone.signal()
        }
        thread.name = "mpv-pump"
        thread.start()
    }

    private struct UncheckedHandle: @unchecked Sendable { let pointer: OpaquePointer }

    /// The pump: blocks in `mpv_wait_event`, converts each event to a Swift value, stops after shutdown.
    private static func pump(_ h: OpaquePointer, _ out: AsyncStream<MPVEvent>.Continuation) {
        while true {
            guard let e = mpv_wait_event(h, -1)?.pointee else { continue }
            switch e.event_id {
            case MPV_EVENT_NONE: continue
            case MPV_EVENT_SHUTDOWN:
                out.yield(.shutdown)
                out.finish()
                return
            case MPV_EVENT_PROPERTY_CHANGE:
                let p = e.data.assumingMemoryBound(to: mpv_event_property.self).pointee
                out.yield(.property(id: e.reply_userdata, name: String(cString: p.name), value: value(format: p.format, data: p.data)))
            case MPV_EVENT_LOG_MESSAGE:
                let m = e.data.assumingMemoryBound(to: mpv_event_log_message.self).pointee
                var text = String(cString: m.text)
                if text.hasSuffix("\n") { text.removeLast() }
                out.yield(.log(level: String(cString: m.level), prefix: String(cString: m.prefix), text: text))
            case MPV_EVENT_START_FILE: out.yield(.startFile)
            case MPV_EVENT_FILE_LOADED: out.yield(.fileLoaded)
            case MPV_EVENT_PLAYBACK_RESTART: out.yield(.playbackRestart)
            case MPV_EVENT_SEEK: out.yield(.seek)
            case MPV_EVENT_END_FILE:
                let f = e.data.assumingMemoryBound(to: mpv_event_end_file.self).pointee
                let reasons: [UInt32: MPVEndReason] = [0: .eof, 2: .stop, 3: .quit, 4: .error, 5: .redirect]
                let err = f.reason == MPV_END_FILE_REASON_ERROR ? String(cString: mpv_error_string(f.error)) : nil
                out.yield(.endFile(reason: reasons[f.reason.rawValue] ?? .unknown, error: err))
            case MPV_EVENT_COMMAND_REPLY:
                out.yield(.commandReply(id: e.reply_userdata, error: e.error < 0 ? String(cString: mpv_error_string(e.error)) : nil))
            default: continue
            }
        }
    }

    /// Copies a value of `format` out of libmpv's memory.
    static func value(format: mpv_format, data: UnsafeMutableRawPointer?) -> MPVValue {
        guard let data else { return .none }
        switch format {
        case MPV_FORMAT_FLAG: return .flag(data.load(as: Int32.self) != 0)
        case MPV_FORMAT_INT64: return .int(data.load(as: Int64.self))
        case MPV_FORMAT_DOUBLE: return .double(data.load(as: Double.self))
        case MPV_FORMAT_STRING:
            guard let s = data.load(as: UnsafePointer<CChar>?.self) else { return .none }
            return .string(String(cString: s))
        case MPV_FORMAT_NODE: return .node(json(data.load(as: mpv_node.self)))
        default: return .none
        }
    }

    /// An mpv_node tree as JSON.
    static func json(_ n: mpv_node) -> JSONValue {
        switch n.format {
        case MPV_FORMAT_STRING: return n.u.string.map { .string(String(cString: $0)) } ?? .null
        case MPV_FORMAT_FLAG: return .bool(n.u.flag != 0)
        case MPV_FORMAT_INT64: return .int(Int(n.u.int64))
        case MPV_FORMAT_DOUBLE: return .double(n.u.double_)
        case MPV_FORMAT_NODE_ARRAY:
            guard let l = n.u.list?.pointee else { return .array([]) }
            return .array((0..<Int(l.num)).map { json(l.values[$0]) })
        case MPV_FORMAT_NODE_MAP:
            guard let l = n.u.list?.pointee else { return .object([]) }
            return .object((0..<Int(l.num)).map { (String(cString: l.keys[$0]!), json(l.values[$0])) })
        default: return .null
        }
    }

    /// Runs `body` with the handle while it is open. The lock is held for the call, so `close` cannot destroy the handle
    /// between the check and the use; calls from several threads are serialised (each is short: libmpv queues the work).
    private func withHandle<R>(_ what: String, _ body: (OpaquePointer) -> R) throws(MPVError) -> R {
        try closed.withLockedValue { closed -> Result<R, MPVError> in
            closed ? .failure(MPVError(code: MPV_ERROR_UNINITIALIZED.rawValue, context: what)) : .success(body(handle))
        }.get()
    }

    /// Runs a command synchronously.
    public func command(_ c: MPVCommand) throws(MPVError) {
        let args = c.arguments
        let rc = try withHandle(args[0]) { h in withCStrings(args) { mpv_command(h, $0) } }
        if rc < 0 { throw MPVError(code: rc, context: args.joined(separator: " ")) }
    }

    /// The video frame on screen now, as mpv's `screenshot-raw video` gives it (the decoded frame, before any window
    /// scaling; it works with `vo=null`); nil when there is none (no video track, `vid=no`, nothing decoded yet).
    public func videoFrame() -> VideoFrame? {
        (try? withHandle("screenshot-raw") { h -> VideoFrame? in
            var result = mpv_node()
            let rc = withCStrings(["screenshot-raw", "video"]) { mpv_command_ret(h, $0, &result) }
            guard rc >= 0 else { return nil }
            defer { mpv_free_node_contents(&result) }
            guard result.format == MPV_FORMAT_NODE_MAP, let list = result.u.list?.pointee else { return nil }
            var f = VideoFrame(width: 0, height: 0, stride: 0, format: "", bytes: [])
            for i in 0..<Int(list.num) {
                guard let k = list.keys[i] else { continue }
                let v = list.values[i]
                switch String(cString: k) {
                case "w": f.width = Int(v.u.int64)
                case "h": f.height = Int(v.u.int64)
                case "stride": f.stride = Int(v.u.int64)
                case "format": f.format = v.format == MPV_FORMAT_STRING ? String(cString: v.u.string) : ""
                case "data":
                    if v.format == MPV_FORMAT_BYTE_ARRAY, let ba = v.u.ba?.pointee, let d = ba.data {
                        f.bytes = Array(UnsafeRawBufferPointer(start: d, count: ba.size))
                    }
                default: break
                }
            }
            return f.width > 0 && f.height > 0 && f.bytes.count >= f.stride * f.height ? f : nil
        }) ?? nil
    }

    /// Sets a property.
    public func set(_ setting: MPVSetting) throws(MPVError) {
        let (name, value) = (setting.name, setting.value)
        let rc = try withHandle(name) { h in mpv_set_property_string(h, name, value) }
        if rc < 0 { throw MPVError(code: rc, context: "\(name)=\(value)") }
    }

    /// Reads a property now; nil when it is unavailable (or the player is closed).
    public func get<V>(_ p: MPVProperty<V>) -> V? {
        (try? withHandle(p.name) { h in MPV.read(h, p.name, p.format) }).flatMap(p.decode)
    }

    private static func read(_ handle: OpaquePointer, _ name: String, _ format: MPVFormat) -> MPVValue {
        switch format {
        case .flag:
            var v: Int32 = 0
            return mpv_get_property(handle, name, MPV_FORMAT_FLAG, &v) >= 0 ? .flag(v != 0) : .none
        case .int:
            var v: Int64 = 0
            return mpv_get_property(handle, name, MPV_FORMAT_INT64, &v) >= 0 ? .int(v) : .none
        case .double:
            var v: Double = 0
            return mpv_get_property(handle, name, MPV_FORMAT_DOUBLE, &v) >= 0 ? .double(v) : .none
        case .string:
            guard let s = mpv_get_property_string(handle, name) else { return .none }
            defer { mpv_free(s) }
            return .string(String(cString: s))
        case .node:
            var n = mpv_node()
            guard mpv_get_property(handle, name, MPV_FORMAT_NODE, &n) >= 0 else { return .none }
            defer { mpv_free_node_contents(&n) }
            return .node(MPV.json(n))
        }
    }

    /// Asks for `.property(id:)` events whenever `p` changes.
    public func observe<V>(_ p: MPVProperty<V>, id: UInt64) throws(MPVError) {
        let (name, format) = (p.name, p.format.c)
        let rc = try withHandle(name) { h in mpv_observe_property(h, id, name, format) }
        if rc < 0 { throw MPVError(code: rc, context: "observe \(name)") }
    }

    /// Quits the player, waits for the pump to see the shutdown (bounded), and frees the handle; safe to call twice.
    public func close(timeout: Double = 3) {
        let already = closed.withLockedValue { c in
            defer { c = true }
            return c
        }
        if already { return }
        Self.count(-1)
        _ = withCStrings(["quit"]) { mpv_command(handle, $0) }
        if pumpDone.wait(timeout: .now() + timeout) == .timedOut {
            // The pump never saw the shutdown: leave the handle alive rather than destroy it under the pump.
            return
        }
        mpv_terminate_destroy(handle)
    }

    deinit { close() }
}

/// Calls `body` with a NULL-terminated `const char **` built from `args`.
func withCStrings<R>(_ args: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = args.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    var ptrs: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
    return ptrs.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}
