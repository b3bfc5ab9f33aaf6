import ArgumentParser
import GPSDashboard
import Reel
import ReelCommandLine

@main
struct ReelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reel",
        abstract: "Inspect, composite and render video with timed metadata.",
        subcommands: [InspectCommand.self, MetadataCommand.self, CaptionsCommand.self] + ReelCommandLine.ReelCLI.commands
    )

    /// Registers the example compositors built into `reel`, then runs the command.
    static func main() async {
        FrameMemory.returnFreedFramesToTheSystem()
        ReelCommandLine.ReelCLI.register([GPSDashboardCompositor.registration])
        await ExitStatus.main(Self.self)
    }
}
