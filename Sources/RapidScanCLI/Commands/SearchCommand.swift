import ArgumentParser

// Placeholder; replaced by the issue that builds `rapidscan search`.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "search", abstract: "(not built yet)")
    func run() async throws { throw ExitCode(70) }
}
