import Foundation
import TestSupport
import Testing

/// What a new user meets first, on the built binary: an example in every `--help`, a
/// mistyped command answered with the one meant, completions that complete values.
@Suite struct FirstContactTests {
    @Test func everyHelpShowsAnExampleOfItsCommand() async throws {
        for command in [[]] + CLIContractTests.commands + [["library", "lists", "show"], ["library", "lists", "create"],
                                                         ["library", "lists", "rename"], ["library", "lists", "delete"]] {
            let help = try await runRapidScan(command + ["--help"])
            #expect(help.status == 0, "\(command): \(help.stderr)")
            // The example names the command itself: `rapidscan library set ...` in `library set --help`.
            let invocation = (["rapidscan"] + command).joined(separator: " ")
            let example = help.stdout.components(separatedBy: "Example").dropFirst().first ?? ""
            #expect(example.hasPrefix(":") || example.hasPrefix("s:"), "\(command) --help has no example")
            #expect(example.contains("  " + invocation), "\(command) --help's example does not show `\(invocation)`")
        }
    }

    @Test func aMistypedCommandNamesTheOneMeant() async throws {
        let typo = try await runRapidScan(["scna", "photos"])
        #expect(typo.status == 64)
        #expect(typo.stderr.hasPrefix("rapidscan: 'scna' is not a command; did you mean 'rapidscan scan'?\n"), "\(typo.stderr)")
        let nested = try await runRapidScan(["pending", "retyr"])
        #expect(nested.status == 64)
        #expect(nested.stderr.contains("did you mean 'rapidscan pending retry'?"), "\(nested.stderr)")
        // Nothing near: ArgumentParser's own message, no guess.
        let unknown = try await runRapidScan(["xyzzy"])
        #expect(unknown.status == 64)
        #expect(!unknown.stderr.contains("did you mean"), "\(unknown.stderr)")
    }

    @Test func completionsOfferListNamesAndOwnedISBNsFromTheLibrary() async throws {
        let harness = try await CLIHarness.started()
        #expect(try await harness.run("account", "--pro").status == 0)
        let created = try await harness.run("library", "lists", "create", "Lent out")
        #expect(created.status == 0, "\(created.stderr)")
        let added = try await harness.run("library", "add", "9780306406157", "--title", "Family Recipes", "--author", "Ann Smith")
        #expect(added.status == 0, "\(added.stderr)")

        // What the generated scripts run when the shell asks for a list name or an ISBN.
        let lists = try await harness.run(["---completion", "library", "move", "--", "--to", "0", "1", "L"])
        #expect(lists.status == 0, "\(lists.stderr)")
        #expect(lists.stdoutLines.contains("Lent out"), "\(lists.stdout)")
        #expect(!lists.stdoutLines.contains("Want to Read"), "only names starting with the typed prefix: \(lists.stdout)")
        let isbns = try await harness.run(["---completion", "library", "show", "--", "positional@0", "0", "3", "978"])
        #expect(isbns.status == 0, "\(isbns.stderr)")
        #expect(isbns.stdoutLines == ["9780306406157"], "\(isbns.stdout)")
    }
}
