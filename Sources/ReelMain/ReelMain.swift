import GPSDashboard
import ReelCommandLine

/// `reel`: the whole command line (ReelCommandLine) with the GPS dashboard example's compositor built in.
@main
enum ReelMain {
    static func main() async { await ReelCLI.main(registering: [GPSDashboardCompositor.registration]) }
}
