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
    ],
    targets: [
        // Pure: no I/O, no C modules, no wall clock.
        .target(name: "JSONValue"),
        .target(name: "HLS"),
        .target(name: "HLSReport", dependencies: ["HLS", "JSONValue"]),
        // C adapters.
        .systemLibrary(name: "CMPV", pkgConfig: "mpv", providers: [.apt(["libmpv-dev"])]),
        .target(
            name: "CNCurses",
            cSettings: [.define("NCURSES_WIDECHAR", to: "1"), .define("_XOPEN_SOURCE_EXTENDED", to: "1")],
            linkerSettings: [.linkedLibrary("ncursesw")]
        ),
        .target(name: "Player", dependencies: ["CMPV"]),
        .target(name: "Terminal", dependencies: ["CNCurses"]),
        // Composition root and CLI.
        .target(name: "App", dependencies: ["HLS", "HLSReport", "JSONValue", "Player", "Terminal"]),
        .executableTarget(
            name: "hlstui",
            dependencies: ["App", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(name: "hlstui-parse-bench", dependencies: ["HLS"], path: "Benchmarks/ParseBench"),
        .testTarget(name: "HLSTests", dependencies: ["HLS", "HLSReport", "JSONValue"]),
        .testTarget(name: "AppTests", dependencies: ["App", "Player", "Terminal"], exclude: ["Fixtures"]),
    ]
)
