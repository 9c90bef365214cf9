import ArgumentParser

// Placeholder; replaced by the issue that builds `rapidscan cache`.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cache", abstract: "(not built yet)")
    func run() async throws { throw ExitCode(70) }
}
