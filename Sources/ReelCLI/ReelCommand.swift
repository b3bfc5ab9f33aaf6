import ArgumentParser
import Reel

@main
struct ReelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reel",
        abstract: "Inspect, composite and render video with timed metadata.",
        subcommands: [InspectCommand.self, MetadataCommand.self]
    )
}
