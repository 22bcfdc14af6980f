import CMPV

/// Facts about the libmpv this binary linked against.
public enum MPVInfo {
    /// The client API version as `major.minor` (libmpv 0.35 reports 2.0).
    public static var clientAPIVersion: String {
        let v = mpv_client_api_version()
        return "\(v >> 16).\(v & 0xFFFF)"
    }

    /// True when a libmpv handle can be created and initialised headless here (vo=null, ao=null).
    public static func canCreateHeadlessHandle() -> Bool {
        guard let h = mpv_create() else { return false }
        defer { mpv_terminate_destroy(h) }
        _ = mpv_set_option_string(h, "vo", "null")
        _ = mpv_set_option_string(h, "ao", "null")
        _ = mpv_set_option_string(h, "terminal", "no")
        return mpv_initialize(h) >= 0
    }
}
