// swift-tools-version:6.1
import PackageDescription

// One module per concern; the executable stays thin. See ARCHITECTURE.md.
let package = Package(
    name: "rapidscan",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "rapidscan", targets: ["rapidscan"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        // Terminal colours for the CLI's toasts (only on a terminal; off with NO_COLOR / TERM=dumb).
        .package(url: "https://github.com/onevcat/Rainbow", from: "4.2.2"),
    ],
    targets: [
        // C libraries, through pkg-config.
        // zbar: headers only, opened on first use (CLazyLibraries) like the four below.
        .systemLibrary(name: "CZBar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        // Tesseract, libheif, libpq (and libcurl below): headers only (no pkg-config, whose flags
        // would link them); CLazyLibraries opens each on first use, so commands that never need
        // them start without loading them and the ~70 libraries they pull in.
        .systemLibrary(name: "CTesseract", providers: [.apt(["libtesseract-dev", "tesseract-ocr-eng"])]),
        // HTTP: libcurl's blocking easy API on a dedicated thread (waiting costs no CPU).
        // Opened on first use too (CLazyLibraries): a command that asks no source loads no TLS stack.
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CHTTPTransport", dependencies: ["CCurl", "CLazyLibraries"]),
        // WebP (phone apps, browsers): errors come back as values, so Swift calls it directly.
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        // HEIC/HEIF/AVIF (iPhone photos): libheif returns errors as values, so Swift calls it directly.
        .systemLibrary(name: "CHeif", providers: [.apt(["libheif-dev"])]),
        // libjpeg/libpng errors are caught with setjmp here, in C, and returned as codes.
        .target(name: "CImageCodecs", dependencies: ["CPNG", "CJPEG"]),
        // zlib: Open Library dumps are gzip (LocalSource streams them).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // PostgreSQL's client library: synchronous calls, errors as values (the catalogue seam is synchronous).
        .systemLibrary(name: "CLibPQ", providers: [.apt(["libpq-dev"])]),
        // The forwarders for those five, each library opened with dlopen on first use (errors as values).
        .target(name: "CLazyLibraries"),
        // glibc's malloc_trim: the dump loader hands freed memory back before its end-of-load sorts.
        .systemLibrary(name: "CMalloc"),

        // Concurrency helpers: the one ordered worker pool (scan, watch) and AsyncSemaphore (HTTP, lookups).
        .target(name: "WorkerPools"),
        // Pure values: GTIN/EAN/UPC/ISBN.
        .target(name: "BookCodes"),
        // Book data as sources describe it: EditionMetadata, PublishDate, one normaliser per field.
        .target(name: "BookMetadata"),
        // Files -> 8-bit grayscale images.
        .target(name: "Imaging", dependencies: ["CImageCodecs", "CWebP", "CHeif", "CLazyLibraries"]),
        // zbar behind a safe Swift type; detections validated through BookCodes.
        .target(name: "BarcodeReading", dependencies: ["CZBar", "CLazyLibraries", "Imaging", "BookCodes", "BookMetadata", "WorkerPools"]),
        // Config file, environment, XDG locations.
        .target(name: "RapidScanConfig", dependencies: [
            .product(name: "TOMLKit", package: "TOMLKit"),
        ]),
        // SQLite work/ISBN cache and the user's library.
        .target(name: "Catalogue", dependencies: [
            "BookCodes", "BookMetadata",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // Google Books, Open Library over HTTP.
        // Each source takes its own settings value; the app maps its config to them (RapidScanCLI).
        .target(name: "MetadataSources", dependencies: ["BookCodes", "BookMetadata", "CHTTPTransport", "WorkerPools"]),
        // Open Library dumps loaded into a local SQLite file: a MetadataSource asked before the network.
        .target(name: "LocalSource", dependencies: [
            "CZlib", "CMalloc", "BookCodes", "BookMetadata", "MetadataSources", "WorkerPools",
            .product(name: "GRDB", package: "GRDB.swift"),
            // The loader binds an edition's values through SQLite's C API (`DirectBinding`).
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        // The catalogue on a PostgreSQL server (several stations, one library): every role of the seam over libpq.
        .target(name: "PostgresCatalogue", dependencies: ["CLibPQ", "CLazyLibraries", "Catalogue", "BookCodes", "BookMetadata", "MetadataSources"]),
        // ISBN -> cache -> sources -> merged work; pending lookups.
        .target(name: "BookLookup", dependencies: ["BookCodes", "BookMetadata", "Catalogue", "MetadataSources", "WorkerPools"]),
        // The one way a book enters the library, whichever door: resolve -> add -> record -> emit.
        .target(name: "Intake", dependencies: ["BookCodes", "Catalogue", "BookLookup"]),
        // Frame source -> decode -> confirm -> debounce -> look up -> add -> record -> emit (prints nothing).
        .target(name: "Pipeline", dependencies: [
            "BookCodes", "Imaging", "BarcodeReading", "Catalogue", "BookLookup", "Intake", "WorkerPools", "MetadataSources",
            // `watch`'s journal: a small SQLite file of the station's.
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // Import of other apps' exports and ISBN lists; export to Firestore/CSV/Goodreads/JSON.
        .target(name: "LibraryTransfer", dependencies: [
            "BookCodes", "BookMetadata", "Catalogue", "BookLookup", "Intake", .product(name: "CSV", package: "CSV.swift"),
        ]),
        // Shelf photos -> spine readings (vision models over HTTP, local OCR): the SpineReader seam.
        .target(name: "Vision", dependencies: ["Imaging", "BookMetadata", "MetadataSources", .product(name: "Mustache", package: "swift-mustache")]),
        // Local OCR spine reader: Tesseract on Imaging's gray pixels, words grouped into spines.
        .target(name: "SpineOCR", dependencies: ["CTesseract", "CLazyLibraries", "Imaging", "Vision", "WorkerPools"]),
        // The ISBN printed on a book (and the digits under its bars as their second witness), read with Tesseract.
        .target(name: "PrintedISBN", dependencies: ["SpineOCR", "BarcodeReading", "Imaging", "BookCodes"]),
        // Spine readings -> scored candidate works -> strong / medium / none (beets-style).
        .target(name: "SpineMatching", dependencies: ["Vision"]),
        // Shelf photos -> readings (reply cache) -> matches -> owned books / review queue.
        .target(name: "SpineScanning", dependencies: ["Vision", "SpineMatching", "Catalogue", "BookLookup", "Intake", "MetadataSources", "BookCodes", "BookMetadata"]),
        // The matching table's benchmark (scripts/bench-spine-matching).
        .executableTarget(name: "SpineMatchingBenchmark", dependencies: ["SpineMatching", "SpineScanning", "Catalogue", "BookCodes", "BookMetadata", "Vision"], path: "Benchmarks/SpineMatchingBenchmark"),
        // Subcommands (one type each); the executable only calls into this.
        .target(name: "RapidScanCLI", dependencies: [
            "BookCodes", "BookMetadata", "Imaging", "BarcodeReading", "RapidScanConfig", "Catalogue", "PostgresCatalogue",
            "MetadataSources", "BookLookup", "Intake", "Pipeline", "Vision", "SpineMatching", "SpineScanning", "SpineOCR",
            "LibraryTransfer", "PrintedISBN", "LocalSource",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Rainbow", package: "Rainbow"),
        ]),
        .executableTarget(name: "rapidscan", dependencies: ["RapidScanCLI"]),
        // JPEG decode timings at each DCT scale (scripts/bench-imaging).
        .executableTarget(name: "ImagingBenchmark", dependencies: ["Imaging"], path: "Benchmarks/ImagingBenchmark"),
        // CPU per stage of reading webcam frames, and how many read (scripts/bench-watch --stages).
        .executableTarget(name: "LiveDecodeBenchmark", dependencies: ["Imaging", "BarcodeReading", "BookCodes"],
                          path: "Benchmarks/LiveDecodeBenchmark"),
        // Tesseract spine reading on rendered and real shelves (scripts/bench-spines-ocr).
        .executableTarget(name: "SpineOCRBenchmark", dependencies: ["SpineOCR", "SpineMatching", "Vision", "ImageTestSupport"],
                          path: "Benchmarks/SpineOCRBenchmark"),

        // Printed-ISBN reading on painted book backs, rendered pages and traps (scripts/bench-printed-isbn).
        .executableTarget(name: "PrintedISBNBenchmark", dependencies: ["PrintedISBN", "SpineOCR", "BarcodeReading", "BookCodes", "Imaging", "ImageTestSupport"],
                          path: "Benchmarks/PrintedISBNBenchmark"),

        // Test helpers: fixture paths, a loopback HTTP server replaying recorded responses.
        .target(name: "TestSupport", dependencies: [
            "BookCodes", "RapidScanConfig", .product(name: "FlyingFox", package: "FlyingFox"),
        ], path: "Tests/TestSupport"),
        // Encoders only tests use (PNG via PNGWriter, WebP via libwebp): fixtures made in the test.
        .target(name: "ImageTestSupport", dependencies: ["Imaging", "CWebP"], path: "Tests/ImageTestSupport"),
        .testTarget(name: "BookCodesTests", dependencies: [
            "BookCodes", .product(name: "PropertyBased", package: "swift-property-based"),
        ]),
        .testTarget(name: "BookMetadataTests", dependencies: ["BookMetadata"]),
        .testTarget(name: "WorkerPoolsTests", dependencies: ["WorkerPools", "TestSupport"]),
        .testTarget(name: "ImagingTests", dependencies: ["ImageTestSupport", "Imaging", "CWebP", "TestSupport"]),
        .testTarget(name: "BarcodeReadingTests", dependencies: ["ImageTestSupport", "BarcodeReading", "Imaging", "BookCodes", "TestSupport"]),
        .testTarget(name: "CatalogueTests", dependencies: [
            "Catalogue", "PostgresCatalogue", "BookCodes", "BookMetadata", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // The config file, environment overrides and path values: no network, no database.
        .testTarget(name: "RapidScanConfigTests", dependencies: ["RapidScanConfig", "TestSupport"]),
        .testTarget(name: "MetadataSourcesTests", dependencies: ["MetadataSources", "BookCodes", "TestSupport"]),
        .testTarget(name: "LocalSourceTests", dependencies: [
            "LocalSource", "MetadataSources", "BookCodes", "BookMetadata", "TestSupport",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "BookLookupTests", dependencies: [
            "BookLookup", "Catalogue", "MetadataSources", "BookCodes", "BookMetadata", "TestSupport",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "LibraryTransferTests", dependencies: [
            "LibraryTransfer", "Catalogue", "BookLookup", "MetadataSources", "BookCodes", "BookMetadata", "TestSupport",
        ]),
        .testTarget(name: "IntakeTests", dependencies: [
            "Intake", "Catalogue", "BookLookup", "MetadataSources", "BookCodes", "BookMetadata", "TestSupport",
        ]),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "Intake", "Catalogue", "BookLookup", "MetadataSources", "BarcodeReading", "BookCodes", "BookMetadata", "TestSupport"]),
        .testTarget(name: "PrintedISBNTests", dependencies: ["PrintedISBN", "BarcodeReading", "BookCodes", "Imaging", "ImageTestSupport", "TestSupport"]),
        .testTarget(name: "SpineOCRTests", dependencies: ["ImageTestSupport", "SpineOCR", "SpineMatching", "Imaging", "Vision", "TestSupport"]),
        .testTarget(name: "VisionTests", dependencies: ["Vision", "Imaging", "MetadataSources", "TestSupport"]),
        .testTarget(name: "SpineScanningTests", dependencies: ["SpineScanning", "SpineMatching", "Catalogue", "Intake", "Vision", "BookLookup", "MetadataSources", "TestSupport"]),
        .testTarget(name: "SpineMatchingTests", dependencies: ["SpineMatching", "Vision", "TestSupport"], exclude: ["Resources"]),
        // The CLI's own rules (exit table, raw-frame syntax, terminal detection) as units.
        .testTarget(name: "RapidScanCLITests", dependencies: [
            "RapidScanCLI", "Pipeline", "Intake", "Imaging", "BookCodes", "MetadataSources", "RapidScanConfig",
            .product(name: "Rainbow", package: "Rainbow"),
        ]),
        // Runs the built `rapidscan` binary end to end.
        .testTarget(name: "CLITests", dependencies: ["TestSupport", "Imaging", "ImageTestSupport"]),
    ]
)
