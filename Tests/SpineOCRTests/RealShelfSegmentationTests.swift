import Foundation
import Testing
import TestSupport
import Vision
@testable import SpineOCR

/// Segmentation on a real library shelf, read by the real PP-OCR worker and Tesseract: every
/// reading stays within one spine.
@Suite(.serialized) struct RealShelfSegmentationTests {
    /// dianaaaa_img16 (tuning half): three leaning spines side by side, *Fractional Factors and
    /// Fractional Deleted Graphs*, *Factor Critical Graphs* and *Graph Factors and Matching
    /// Extensions*, whose PP-OCR boxes overlap across; their lines were read as one reading
    /// (joined in one strip whose sides between them were missed). Each is now its own.
    @Test(.enabled(if: SceneTextTests.workerExpected && SharedFiles.available, SceneTextTests.notInstalled))
    func leaningNeighboursOfARealShelfAreReadApart() async throws {
        let readings = try await SceneTextTests.readRealShelf("dianaaaa_img16_library_graph_theory_mixed.jpg")
        let texts = readings.map { $0.text.lowercased() }
        // Both titles are read, each in a reading of its own.
        #expect(texts.contains { $0.contains("fractional") }, "\(texts)")
        #expect(texts.contains { $0.contains("critieal") || $0.contains("critical") }, "\(texts)")
        let together = texts.filter { $0.contains("fractional") && ($0.contains("critieal") || $0.contains("critical")) }
        #expect(together.isEmpty, "run together: \(together)")
    }
}
