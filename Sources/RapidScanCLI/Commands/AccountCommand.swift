import ArgumentParser

// Placeholder; replaced by the issue that builds `rapidscan account`.
struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "account", abstract: "(not built yet)")
    func run() async throws { throw ExitCode(70) }
}
