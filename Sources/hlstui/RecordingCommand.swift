import ArgumentParser
import Foundation
import Recording
import LoaderEvents

/// `hlstui recording info|redact`: what a recording holds, and a copy fit to share.
struct RecordingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recording",
        abstract: "Work with a recording made by --record: `info FILE`, `redact IN OUT`.",
        subcommands: [Info.self, Redact.self]
    )

    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What a recording holds: when, which streams, exchanges by outcome, stored bytes.")

        @Argument(help: "A recording made with --record.")
        var file: String

        func run() throws {
            let lines: [String]
            do { lines = try Self.describe(file) } catch { throw CLIError("hlstui recording info: \(error.description)") }
            for l in lines { print(l) }
        }

        static func describe(_ file: String) throws(RecordingError) -> [String] {
            let f = try RecordingFile(path: file)
            let meta = try f.meta()
            let xs = try f.exchanges()
            let storage = try f.storage()
            let events = try f.events().count
            let commands = try f.inputs().count
            let length = max(try f.events().last?.t ?? 0, xs.last.map { $0.t + $0.seconds } ?? 0)
            var outcomes: [String: Int] = [:]
            for x in xs {
                let k = x.failure.map { "failed: \($0)" } ?? x.status.map { "HTTP \($0)" } ?? "no answer"
                outcomes[k, default: 0] += 1
            }
            let counted = outcomes.sorted { $0.value > $1.value }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            return [
                "\(file): \(meta["command"] ?? "?") session of \(String(format: "%.1f", length)) s, started \(meta["started"] ?? "?")",
                "streams: \(meta["urls"] ?? "[]")",
            ] + (meta["redacted"].map { ["redacted: \($0)"] } ?? []) + [
                "exchanges: \(xs.count) (\(counted)), keys: \(Set(xs.filter(\.secret).map(\.url)).count) (bytes never recorded)",
                "bodies: \(storage.bodies) stored, \(storage.bytes) bytes for \(storage.exchangeBytes) bytes received; events: \(events), commands: \(commands)",
            ]
        }
    }

    struct Redact: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Copy a recording without its secrets: token-like query parameters (and those named), user:password in URLs, cookies and credentials in headers; it still replays."
        )

        @Argument(help: "The recording.")
        var input: String

        @Argument(help: "The redacted copy (a new file).")
        var output: String

        @Option(name: .customLong("param"), help: "Another query parameter whose values are taken out (repeatable).")
        var params: [String] = []

        func run() throws {
            do {
                let n = try RecordingRedaction.redact(input, to: output, with: Redactor(parameters: params))
                print("\(output): \(n) value\(n == 1 ? "" : "s") redacted")
            } catch {
                throw CLIError("hlstui recording redact: \(error.description)")
            }
        }
    }
}
