import ArgumentParser

// Placeholder; replaced by the issue that builds `rapidscan watch`.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "watch", abstract: "(not built yet)")
    func run() async throws { throw ExitCode(70) }
}
