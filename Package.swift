// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "hlstui",
    products: [
        .executable(name: "hlstui", targets: ["hlstui"]),
        .library(name: "HLS", targets: ["HLS"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.98.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.19.4"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-http-structured-headers", from: "1.7.0"),
    ],
    targets: [
        // Pure: no I/O, no C modules, no wall clock.
        .target(name: "JSONValue"),
        .target(name: "HLS"),
        .target(name: "HLSReport", dependencies: ["HLS", "JSONValue", "MediaFormats"]),
        .target(name: "MediaFormats", dependencies: [.product(name: "ExtrasBase64", package: "swift-extras-base64")]),
        .target(name: "CMCD", dependencies: [.product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers")]),
        .target(name: "Offline", dependencies: ["HLS"]),
        // A fleet file, its shards and the restart backoff (docs/FLEET.md).
        .target(
            name: "Fleet",
            dependencies: [.product(name: "Yams", package: "Yams"), .product(name: "Crypto", package: "swift-crypto")]),
        // What the Loader reports (requests, keys, playlists), without NIO, so the Session can consume it.
        .target(name: "LoaderEvents", dependencies: ["HLS", "JSONValue", "CMCD", "MediaFormats"]),
        // One pane's state, reducer and controllers; pure (time arrives with each event).
        .target(name: "Session", dependencies: ["HLS", "LoaderEvents", "CMCD", "MediaFormats"]),
        // Panels, themes and keys as pure functions of the session; the curses adapter lives in Terminal.
        .target(name: "TUI", dependencies: ["Session", "HLS", "LoaderEvents", "MediaFormats", "CMCD"]),
        // The Loader's core, without NIO: keys (store, repair, spreading), decryption with checks, DRM explanations, virtual
        // playlists, splice routes, source health.
        .target(
            name: "LoaderCore",
            dependencies: [
                "HLS", "LoaderEvents", "MediaFormats", "CMCD", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The Loader's server: the loopback HTTP server the player reads, its upstream client and TLS trust (NIO).
        .target(
            name: "Loader",
            dependencies: [
                "LoaderCore", "HLS", "LoaderEvents", "MediaFormats", "JSONValue", "CMCD", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // The embedded origin: generated media, scenarios, faults, HTTP and HTTPS on loopback.
        .target(
            name: "Origin",
            dependencies: [
                "HLS", "JSONValue", "MediaFormats", "LoaderEvents", "CMCD",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // C adapters.
        // libmpv-dev puts mpv/client.h on the default include path; the module map links libmpv (pkg-config would add
        // flags SwiftPM refuses, with a warning on every build).
        .systemLibrary(name: "CMPV"),
        // glibc's malloc tuning, which Swift's Glibc module does not bring in.
        .target(name: "CMalloc"),
        .target(
            name: "CNCurses",
            cSettings: [.define("NCURSES_WIDECHAR", to: "1"), .define("_XOPEN_SOURCE_EXTENDED", to: "1")],
            linkerSettings: [.linkedLibrary("ncursesw")]
        ),
        .target(
            name: "Player",
            dependencies: ["CMPV", "JSONValue", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        // Session recordings: one SQLite file per session (docs/RECORDING.md), through GRDB on Debian's libsqlite3.
        .target(
            name: "Recording",
            dependencies: [
                "LoaderEvents", "JSONValue", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        .target(
            name: "Terminal",
            dependencies: ["CNCurses", "TUI", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        // Composition root and CLI.
        .target(
            name: "App",
            dependencies: [
                "HLS", "HLSReport", "JSONValue", "Player", "Terminal", "Origin", "Loader", "LoaderCore", "LoaderEvents", "MediaFormats",
                "Session", "TUI", "Recording", "Offline", "CMalloc", "CMCD", "Fleet",
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        .executableTarget(
            name: "hlstui",
            dependencies: [
                "App", "CMCD", "Origin", "Loader", "LoaderCore", "LoaderEvents", "Recording", "Offline", "CMalloc", "Player", "Session",
                "TUI", "Terminal", "Fleet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "hlstui-parse-bench", dependencies: ["HLS"], path: "Benchmarks/ParseBench"),
        .executableTarget(
            name: "hlstui-loader-bench",
            dependencies: ["Loader", "LoaderCore", "LoaderEvents", "Origin", .product(name: "NIOPosix", package: "swift-nio")],
            path: "Benchmarks/LoaderBench"
        ),
        .executableTarget(
            name: "hlstui-cache-bench",
            dependencies: ["Loader", "LoaderCore", "Origin", "Recording", .product(name: "NIOPosix", package: "swift-nio")],
            path: "Benchmarks/CacheBench"
        ),
        .executableTarget(
            name: "hlstui-session-bench",
            dependencies: ["App", "Origin", "Player", "JSONValue", "CMalloc"],
            path: "Benchmarks/SessionBench"
        ),
        // What the test targets share: the package root, the test origin, `eventually`.
        .target(
            name: "TestSupport",
            dependencies: ["Origin", "Loader", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")], path: "Tests/Support"),
        .testTarget(name: "HLSTests", dependencies: ["HLS", "HLSReport", "JSONValue", "MediaFormats"], exclude: ["Corpus"]),
        // The sessions the Session's and the dashboard's tests share, built through the Session's public entry point.
        .target(name: "SessionFixtures", dependencies: ["Session", "HLS", "LoaderEvents"], path: "Tests/SessionFixtures"),
        .testTarget(name: "SessionTests", dependencies: ["Session", "SessionFixtures", "HLS", "LoaderEvents", "CMCD", "MediaFormats"]),
        .testTarget(name: "CMCDTests", dependencies: ["CMCD", "LoaderCore", "HLS"]),
        .testTarget(
            name: "TUITests", dependencies: ["TUI", "Session", "SessionFixtures", "HLS", "LoaderEvents", "CMCD"], exclude: ["Snapshots"]),
        .testTarget(
            name: "AppTests",
            dependencies: [
                "App", "HLS", "LoaderEvents", "Player", "Terminal", "Origin", "Session", "TUI", "Recording", "Offline", "TestSupport",
                "CMCD", "Loader", "Fleet", .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "Yams", package: "Yams"),
            ],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "RecordingTests",
            dependencies: ["Recording", "LoaderEvents", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        .testTarget(name: "OfflineTests", dependencies: ["Offline", "HLS"]),
        .testTarget(name: "FleetTests", dependencies: ["Fleet"]),
        .testTarget(
            name: "LoaderTests",
            dependencies: [
                "Loader", "LoaderCore", "LoaderEvents", "Origin", "HLS", "MediaFormats", "TestSupport", "CMCD",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        .testTarget(
            name: "OriginTests",
            dependencies: [
                "Origin", "HLS", "LoaderCore", "LoaderEvents", "MediaFormats", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
    ]
)

// Strict settings for every Swift target (DECISIONS.md, "Strict compiler settings"): existentials spelled `any`, and a
// member visible only through a module the file imports itself.
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
}
