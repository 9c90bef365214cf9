import BookCodes

/// Decides which of the codes read over several attempts on one image are reported.
///
/// A check digit catches most misreads, not all (1 in 10 of the misreads that change one
/// digit pair pass it), and every extra pass is another chance for one; a wrong code is a
/// wrong book in someone's library, worse than a miss. So a code counts only when it is
/// *confirmed* — read by two attempts (another scale, binarisation…) or by enough of zbar's
/// scan lines — and *not contradicted* by a different valid code at the same place.
struct Agreement {
    /// zbar's quality is the number of scan lines that decoded the symbol alike. A printed
    /// code crossed by a handful of lines gives at least this; a misread seldom repeats.
    static let confirmingQuality = 6
    /// A lone weak read beside a code this many times stronger is that code misread.
    static let dominance = 4
    /// A doubtful read's second look covers at least this many file pixels around zbar's box.
    static let secondLookReach = 48
    /// The attempt `ModelDecoder`'s readings are recorded under.
    static let modelFitAttempt = "model fit"

    /// One code's reads over the attempts, in the file's coordinates.
    struct Sighting {
        var detection: Detection
        var attempts: Set<String>
        var quality: Int
        /// The most scan lines of one read from a copy that was not sharpened.
        var plainQuality: Int
        /// Whether any read had lines running each way (`Detection.readBothWays`).
        var readBothWays: Bool
        /// Whether an attempt read it along its own bars: a patch's crop turned level, or the
        /// model fitted to it (not only zbar's rows and columns across the image).
        var readUpright: Bool
        /// The box around all its reads' boxes: where the pixels are checked when the
        /// strongest read's box (a few lines' worth, from a second look) holds too little.
        var extent: BoundingBox

        /// Read both ways, and by enough lines of a plain copy or by two attempts. A
        /// sharpened copy's lines do not confirm on their own: blurred bars sharpened can
        /// turn a 7 into a 1 (or 8 into 2: the digits zbar tells apart by bar widths alone)
        /// on every line alike. A UPC-E or EAN-8 misread from part of a longer code's bars
        /// repeats in every form of those bars, so a short code also needs many lines.
        var isConfirmed: Bool {
            guard readBothWays else { return false }
            let short = Agreement.isShort(detection)
            return plainQuality >= Agreement.confirmingQuality
                || (attempts.count >= 2 && (!short || quality >= Agreement.confirmingQuality))
        }
    }

    private(set) var sightings: [Sighting] = []
    /// Codes whose digits the pixels contradict (`PixelCheck`), by identity: never reported.
    private(set) var contradicted: Set<String> = []
    /// Codes already checked against the pixels, by identity.
    var checked: Set<String> = []
    /// Codes whose confirmation no longer counts (read only across bars turned well off the
    /// axes, which the pixel check could not find and an upright read did not repeat): unconfirmed.
    private(set) var doubted: Set<String> = []
    /// Codes `PixelCheck` found on the pixels with every digit borne out, by identity.
    private(set) var borneOut: Set<String> = []

    mutating func refuse(_ identity: String) { contradicted.insert(identity) }
    mutating func doubt(_ identity: String) { doubted.insert(identity) }
    mutating func bearOut(_ identity: String) { borneOut.insert(identity) }

    /// Adds one attempt's valid main codes (add-ons travel with them).
    /// `sharpened`: the attempt scanned a sharpened copy (its lines alone do not confirm).
    /// `upright`: it read a patch's crop turned level, or fitted the model there.
    mutating func record(_ detection: Detection, attempt label: String, sharpened: Bool = false, upright: Bool = false) {
        let attempt = Agreement.family(of: label)
        if let index = sightings.firstIndex(where: { $0.detection.identity == detection.identity }) {
            sightings[index].attempts.insert(attempt)
            sightings[index].quality = max(sightings[index].quality, detection.quality)
            if !sharpened { sightings[index].plainQuality = max(sightings[index].plainQuality, detection.quality) }
            sightings[index].readBothWays = sightings[index].readBothWays || detection.readBothWays
            sightings[index].readUpright = sightings[index].readUpright || upright
            sightings[index].extent = sightings[index].extent.union(detection.bounds)
            if sightings[index].detection.addOn == nil, detection.addOn != nil {
                sightings[index].detection.addOn = detection.addOn
            }
            // The box of the strongest read is the most complete.
            if detection.quality > sightings[index].detection.quality {
                let addOn = sightings[index].detection.addOn
                sightings[index].detection = detection
                sightings[index].detection.addOn = addOn ?? detection.addOn
            }
        } else {
            sightings.append(Sighting(detection: detection, attempts: [attempt], quality: detection.quality,
                                      plainQuality: sharpened ? 0 : detection.quality,
                                      readBothWays: detection.readBothWays, readUpright: upright, extent: detection.bounds))
        }
    }

    /// Gives the code read as `identity` the add-on found beside it by another reader (the
    /// model), unless one was read with it already.
    mutating func attach(_ addOn: AddOn, to identity: String) {
        guard let index = sightings.firstIndex(where: { $0.detection.identity == identity }),
              sightings[index].detection.addOn == nil else { return }
        sightings[index].detection.addOn = addOn
    }

    /// zbar's rows and columns cross bars turned 15–75° off the axes slantwise, each line a
    /// stretched cut of the code, and on a soft code can repeat one misread on many lines
    /// (traps printed with a wrong check digit, turned 50–65°: 8 lines of a webcam place's crop
    /// alike). A code in such a patch, which the patch read upright (its crop turned level, or
    /// the model fitted to it) did not read, loses its confirmation. `readUpright`: the turned
    /// patches whose upright crop was read. (Asking such a code for a read of a copy not
    /// sharpened as well would refuse the last turned trap `decode` reports, 8 read as 2 by a
    /// sharpened patch and the sharpened whole image, but lost 4 of 60 hard phone photos.)
    mutating func doubtReadsAcrossTurnedBars(readUpright regions: [CandidateRegion], trusted: Set<String> = []) {
        for (identity, _) in readsAcrossTurnedBars(in: regions, trusted: trusted) { doubt(identity) }
    }

    /// Confirmed reads (not the verdict's codes: an upright read of another code at the same
    /// place makes the two an ambiguity, which a misread must not stay part of) that no
    /// attempt read upright, lying in one of `regions` turned off the axes, with that region.
    func readsAcrossTurnedBars(in regions: [CandidateRegion], trusted: Set<String>) -> [(identity: String, region: CandidateRegion)] {
        let turned = regions.filter(\.isTurnedOffAxes)
        guard !turned.isEmpty else { return [] }
        return sightings.compactMap { sighting in
            let identity = sighting.detection.identity, box = sighting.detection.bounds
            guard sighting.isConfirmed, !sighting.readUpright, !trusted.contains(identity),
                  let region = turned.first(where: { $0.holds(x: Double(box.midX), y: Double(box.midY)) }) else { return nil }
            return (identity, region)
        }
    }

    /// The attempt `LiveFrameReader` records its upright look at a doubtful turned code under.
    static let uprightCheckAttempt = "upright check"

    /// Copies made alike but turned a few degrees apart see the same softened bars: they
    /// misread alike (1 for 7, 8 for 2; on traps printed with a wrong check digit, the two
    /// turns of one doubled copy "confirmed" 12 misreads between them), so they count as one attempt.
    static func family(of attempt: String) -> String {
        guard let turn = attempt.range(of: ", turned ") else { return attempt }
        return String(attempt[..<turn.lowerBound]) + ", turned"
    }

    /// What would be reported now.
    struct Verdict {
        var codes: [Detection] = []
        /// Places where two different valid codes were read and neither won.
        var ambiguities = 0
        /// Valid codes read once, by too few scan lines, and never again.
        var unconfirmed = 0
        /// Shorter codes read inside a longer one's box (a UPC-E inside a UPC-A).
        var shadows = 0
        /// Codes whose digits the pixels contradict (`PixelCheck`).
        var contradicted = 0

        /// `rejected` without the add-ons that one of the codes carries (read alone in one
        /// attempt and beside their code in another: no rejection).
        func unpaired(_ rejected: [Detection]) -> [Detection] {
            let paired = Set(codes.compactMap { $0.addOn.map { "\($0.symbology.rawValue):\($0.text)" } })
            return rejected.filter { !paired.contains($0.identity) }
        }
    }

    var verdict: Verdict {
        var verdict = Verdict()
        var dropped = Set<Int>()
        // Shadows first: a UPC-E or EAN-8 read from part of an EAN-13/UPC-A's bars.
        for (short, shortSighting) in sightings.enumerated() where Self.isShort(shortSighting.detection) {
            if sightings.indices.contains(where: { long in
                !Self.isShort(sightings[long].detection)
                    && Self.overlap(sightings[long].detection.bounds, shortSighting.detection.bounds)
            }) {
                dropped.insert(short)
                verdict.shadows += 1
            }
        }
        // A code the pixels contradict is out (it still casts its shadows: those bars are there).
        for index in sightings.indices where contradicted.contains(sightings[index].detection.identity) {
            dropped.insert(index)
            verdict.contradicted += 1
        }
        // A code whose confirmation was doubted stands against no other read of its place.
        for index in sightings.indices where !dropped.contains(index) && doubted.contains(sightings[index].detection.identity) {
            dropped.insert(index)
            verdict.unconfirmed += 1
        }
        // Then contradictions: different codes of one kind at one place.
        var ambiguous = Set<Int>()
        for first in sightings.indices where !dropped.contains(first) {
            for second in sightings.indices where second > first && !dropped.contains(second) {
                let a = sightings[first], b = sightings[second]
                guard Self.overlap(a.detection.bounds, b.detection.bounds) else { continue }
                if let weaker = Self.dominated(a, b, first, second) {
                    dropped.insert(weaker)
                } else {
                    ambiguous.formUnion([first, second])
                }
            }
        }
        // Components of mutually contradicting reads, each one ambiguity.
        verdict.ambiguities = Self.groups(ambiguous.sorted(), sightings: sightings)
        for index in sightings.indices where !dropped.contains(index) && !ambiguous.contains(index) {
            if sightings[index].isConfirmed {
                verdict.codes.append(corroborated(sightings[index]))
            } else {
                verdict.unconfirmed += 1
            }
        }
        return verdict
    }

    /// The sighting's code with what vouched for its digits besides zbar's lines.
    private func corroborated(_ sighting: Sighting) -> Detection {
        var code = sighting.detection
        // The model's reading counts as a second reader's only beside zbar's own.
        if sighting.attempts.contains(Self.modelFitAttempt), sighting.attempts.count >= 2 { code.corroborations.insert(.modelReading) }
        if borneOut.contains(code.identity) { code.corroborations.insert(.pixelCheck) }
        if code.addOn != nil { code.corroborations.insert(.addOn) }
        return code
    }

    /// The index of the read that loses outright (unconfirmed, and far weaker), if one does.
    private static func dominated(_ a: Sighting, _ b: Sighting, _ ia: Int, _ ib: Int) -> Int? {
        if !b.isConfirmed, a.isConfirmed, a.quality >= b.quality * dominance { return ib }
        if !a.isConfirmed, b.isConfirmed, b.quality >= a.quality * dominance { return ia }
        return nil
    }

    private static func groups(_ members: [Int], sightings: [Sighting]) -> Int {
        var remaining = Set(members), count = 0
        while let seed = remaining.first {
            count += 1
            var frontier = [seed]
            remaining.remove(seed)
            while let next = frontier.popLast() {
                for other in remaining where overlap(sightings[next].detection.bounds, sightings[other].detection.bounds) {
                    remaining.remove(other)
                    frontier.append(other)
                }
            }
        }
        return count
    }

    static func isShort(_ detection: Detection) -> Bool {
        detection.symbology == .upcE || detection.symbology == .ean8
    }

    /// Whether two boxes, each grown by a margin, meet. zbar's box encloses only the scan
    /// lines that decoded, so a code read by one line is a thin strip of its real area.
    static func overlap(_ a: BoundingBox, _ b: BoundingBox) -> Bool {
        let margin = max(a.width, a.height, b.width, b.height) / 4
        return a.x - margin < b.maxX + margin && b.x - margin < a.maxX + margin
            && a.y - margin < b.maxY + margin && b.y - margin < a.maxY + margin
    }
}
