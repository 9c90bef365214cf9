import ArgumentParser

// Placeholder; replaced by the issue that builds `rapidscan pending`.
struct PendingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pending", abstract: "(not built yet)")
    func run() async throws { throw ExitCode(70) }
}
