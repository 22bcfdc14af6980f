import App
import ArgumentParser
import Foundation
import Player
import Loader
import Origin
import Session
import Terminal
import TUI

/// The hlstui command line.
@main
struct HLSTUI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hlstui",
        abstract: "A terminal dashboard for HLS: what the playlists say and what the player really does.",
        version: "hlstui \(AppInfo.version) (libmpv client API \(MPVInfo.clientAPIVersion), \(CursesInfo.version))",
        subcommands: [
            PlayCommand.self, MonitorCommand.self, InspectCommand.self, OriginCommand.self, DemoCommand.self, ProxyCommand.self,
            KeysCommand.self, ReplayCommand.self, RecordingCommand.self, DownloadCommand.self, OfflineCommand.self,
            FleetCommand.self,
        ],
        defaultSubcommand: PlayCommand.self
    )
}

/// An error whose description is the whole message.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
