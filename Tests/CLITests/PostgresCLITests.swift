import Foundation
import Testing
import TestSupport

/// `--db postgresql://…` and `RAPIDSCAN_DB`: the real binary on the tests' throwaway
/// PostgreSQL server, the password never in what it prints, whether it succeeds or fails.
@Suite struct PostgresCLITests {
    @Test func aPostgreSQLURLIsTheLibraryAndItsPasswordIsNeverPrinted() async throws {
        let cluster = try PostgresTestCluster.shared()
        let database = try cluster.createDatabase()
        defer { cluster.dropDatabase(database) }
        let harness = try CLIHarness()
        let url = cluster.url(database: database)
        func expectNoPassword(_ result: CommandResult, _ what: String) {
            #expect(!result.stdout.contains(cluster.password) && !result.stderr.contains(cluster.password), "\(what) printed the password")
        }

        let added = try await harness.run("library", "add", "9780306406157", "--title", "A Local History", "--author", "Ann Writer",
                                          "--db", url, "--verbose")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stderr.contains("library \(cluster.url(database: database, withPassword: false))"))
        expectNoPassword(added, "add")

        // The password from PGPASSWORD, the URL from RAPIDSCAN_DB: the same library.
        harness.extraEnvironment = ["RAPIDSCAN_DB": cluster.url(database: database, withPassword: false), "PGPASSWORD": cluster.password]
        let listed = try await harness.run("library", "list", "--json", "local", "writer")
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.jsonLines.compactMap { $0["title"] as? String } == ["A Local History"])
        expectNoPassword(listed, "list")
        // doctor reports the server's library (not a file path) and its owned count.
        let doctor = try await harness.run("doctor")
        #expect(doctor.stdout.contains("\(cluster.url(database: database, withPassword: false)), "), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("1 owned book"), "\(doctor.stdout)")
        expectNoPassword(doctor, "doctor")
        harness.extraEnvironment = [:]

        let wrong = url.replacingOccurrences(of: cluster.password, with: "not-\(cluster.password)")
        let refused = try await harness.run("library", "list", "--db", wrong)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("host 127.0.0.1 port \(cluster.port)") && refused.stderr.contains("password authentication failed"),
                "\(refused.stderr)")
        expectNoPassword(refused, "a wrong password")

        let port = try PostgresTestCluster.freePort()
        let unreachable = try await harness.run("library", "list", "--db", "postgresql://scanner:\(cluster.password)@127.0.0.1:\(port)/library")
        #expect(unreachable.status != 0)
        #expect(unreachable.stderr.contains("host 127.0.0.1 port \(port)"), "\(unreachable.stderr)")
        expectNoPassword(unreachable, "an unreachable server")
    }
}
