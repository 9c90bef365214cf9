import Foundation
import TestSupport
import Testing

/// libheif, libtesseract, libpq, libcurl and libzbar (with the ~80 libraries they pull in: codecs,
/// leptonica, TLS, Kerberos, LDAP, X11, D-Bus, V4L) are opened on first use, not at every command's start (CLazyLibraries):
/// checked with the dynamic loader's own log (`LD_DEBUG=libs`) on the built binary.
@Suite struct LazyLibrariesCLITests {
    /// Libraries only some commands need.
    static let engines = ["libheif.so", "libde265.so", "libtesseract.so", "liblept.so", "libpq.so", "libldap", "libcurl.so", "libgnutls.so", "libzbar.so", "libX11.so", "libdbus-1.so"]

    /// The file names of the libraries the run initialised, from the loader's log on stderr.
    static func initialised(_ result: CommandResult) -> [String] {
        result.stderrLines.compactMap { line in
            guard let range = line.range(of: "calling init: ") else { return nil }
            return (String(line[range.upperBound...]) as NSString).lastPathComponent
        }
    }

    static func loads(_ libraries: [String], prefix: String) -> Bool { libraries.contains { $0.hasPrefix(prefix) } }

    @Test func listingTheLibraryLoadsNoEngine() async throws {
        let harness = try CLIHarness()
        harness.extraEnvironment["LD_DEBUG"] = "libs"
        let result = try await harness.run("library", "list")
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        let libraries = Self.initialised(result)
        // The log is there: SQLite is what a listing needs.
        #expect(Self.loads(libraries, prefix: "libsqlite3.so"), "\(libraries)")
        for engine in Self.engines {
            #expect(!Self.loads(libraries, prefix: engine), "\(engine) loaded by `library list`: \(libraries)")
        }
    }

    /// The doctor names zbar's version: the library is opened for it (and its functions resolved).
    @Test func theDoctorOpensLibzbarForItsVersion() async throws {
        let harness = try CLIHarness()
        harness.extraEnvironment["LD_DEBUG"] = "libs"
        let result = try await harness.run("doctor")
        #expect(result.stdoutLines.contains { $0.contains(/^ *ok +zbar \d+\.\d+\.\d+ \(barcodes\)$/) }, "\(result.stdout)")
        #expect(Self.loads(Self.initialised(result), prefix: "libzbar.so"), "\(Self.initialised(result))")
    }

    /// A libzbar that cannot be loaded (here a file that is no library, found first through
    /// LD_LIBRARY_PATH): reading a photo stops with why, naming the Debian package to install.
    @Test func aLibzbarThatCannotBeLoadedIsAnErrorNamingItsPackage() async throws {
        let harness = try CLIHarness()
        let folder = harness.directory.appendingPathComponent("broken-libraries")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["libzbar.so.0", "libzbar.so"] { try Data("not a library".utf8).write(to: folder.appendingPathComponent(name)) }
        harness.extraEnvironment["LD_LIBRARY_PATH"] = folder.path
        let photo = SharedFiles.sampleImages.appendingPathComponent("isbn-9780306406157.png")
        let result = try await harness.run("decode", "--raw", photo.path)
        #expect(result.status != 0)
        #expect(!result.stdoutLines.contains("9780306406157"), "\(result.stdout)")
        #expect(result.stderr.contains("libzbar.so.0 could not be loaded") && result.stderr.contains("install the Debian package libzbar0"),
                "\(result.stderr.suffix(2000))")
        // The loader's own reason, naming the file it tried (the first name's, kept as it was).
        #expect(result.stderr.contains(folder.appendingPathComponent("libzbar.so.0").path), "\(result.stderr.suffix(2000))")
    }

    @Test func aHEICPhotoOpensLibheifWhenItIsRead() async throws {
        let harness = try CLIHarness()
        harness.extraEnvironment["LD_DEBUG"] = "libs"
        let photo = SharedFiles.sampleImages.appendingPathComponent("isbn-9780306406157-irot.heic")
        let result = try await harness.run("decode", "--raw", photo.path)
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        #expect(result.stdoutLines.contains("9780306406157"), "\(result.stdout)")
        let libraries = Self.initialised(result)
        // (libtesseract too: `decode` reads the digits printed under the bars as their second witness.)
        #expect(Self.loads(libraries, prefix: "libheif.so"), "\(libraries)")
        #expect(Self.loads(libraries, prefix: "libzbar.so"), "\(libraries)")
        #expect(!Self.loads(libraries, prefix: "libpq.so"), "\(libraries)")
    }

    @Test func aPostgreSQLLibraryOpensLibpqAndAnUnreachableServerIsAnError() async throws {
        let harness = try CLIHarness()
        harness.extraEnvironment["LD_DEBUG"] = "libs"
        let port = try PostgresTestCluster.freePort()
        let result = try await harness.run("library", "list", "--db", "postgresql://scanner@127.0.0.1:\(port)/library")
        #expect(result.status != 0)
        #expect(result.stderr.contains("host 127.0.0.1 port \(port)"), "\(result.stderr.suffix(2000))")
        let libraries = Self.initialised(result)
        #expect(Self.loads(libraries, prefix: "libpq.so"), "\(libraries)")
        #expect(!Self.loads(libraries, prefix: "libtesseract.so") && !Self.loads(libraries, prefix: "libheif.so"), "\(libraries)")
    }
}
