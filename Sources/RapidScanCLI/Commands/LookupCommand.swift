import ArgumentParser

// Placeholder; replaced by the issue that builds `rapidscan lookup`.
struct LookupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lookup", abstract: "(not built yet)")
    func run() async throws { throw ExitCode(70) }
}
