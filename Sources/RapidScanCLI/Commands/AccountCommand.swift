import ArgumentParser
import Catalogue
import Foundation
import Pipeline

struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Show the plan and owned-book count; switch between the free plan and Pro.",
        discussion: """
        Examples:
          rapidscan account
          rapidscan account --pro

        The free plan holds \(User.freeOwnedLimit) owned books; Pro is unlimited.
        """
    )

    @OptionGroup var library: LibraryOptions

    @Flag(help: "Switch to Pro (no limit on owned books).")
    var pro = false

    @Flag(help: "Switch to the free plan.")
    var free = false

    @Flag(help: "Print the account as one JSON object.")
    var json = false

    func validate() throws {
        if pro && free { throw ValidationError("--pro and --free cannot be combined") }
    }

    func run() async throws {
        let (_, catalogue) = try library.openForSession(access: pro || free ? .write : .read)
        let path = catalogue.location
        let user: User
        let owned: Int
        do {
            if pro || free { try catalogue.setPro(pro) }
            user = try catalogue.user()
            owned = try catalogue.ownedCount()
        } catch {
            throw SessionExitStatus.fail("\(error)")
        }
        if json {
            var line = JSONLine()
            line.set("schema", .int(JSONSchema.version))
            line.set("event", "account")
            line.set("user", user.id)
            line.set("plan", user.isPro ? "pro" : "free")
            line.set("owned", .int(owned))
            line.set("limit", user.isPro ? .null : .int(User.freeOwnedLimit))
            line.set("scanCount", .int(user.scanCount))
            line.set("database", path)
            Console.out(line.text)
        } else {
            print("Plan:     \(user.isPro ? "Pro (unlimited owned books)" : "Free (\(User.freeOwnedLimit) owned books)")")
            print("Owned:    \(owned)\(user.isPro ? "" : "/\(User.freeOwnedLimit)") books")
            print("Scanned:  \(user.scanCount) books added by scanning")
            print("Database: \(path)")
        }
    }
}
