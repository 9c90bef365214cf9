import Testing
@testable import BookCodes

/// Expected splits are the International ISBN Agency's (as its range table gives them).
@Suite struct HyphenationTests {
    @Test(arguments: [
        "978-0-306-40615-7", "978-0-316-03057-1", "978-0-9905829-3-9",  // English language, 978-0
        "978-1-250-31318-8", "978-1-76118-676-9",  // English language, 978-1
        "978-2-07-042779-6",  // French language
        "978-3-16-148410-0",  // German language
        "978-4-10-109205-8", "978-5-7903-2892-3", "978-7-439-15000-1",
        "978-65-5532-001-5", "978-65-89367-27-7",  // Brazil's second group
        "978-81-961517-0-6", "978-84-204-1214-6",
        "978-600-434-345-9", "978-605-037-963-1", "978-988-19978-7-6",
        "978-9953-28-210-7",  // four-digit group (Lebanon)
        "978-99937-25-43-5", "978-99928-24-06-1", "978-99955-1-638-3",  // five-digit groups
        "979-10-90636-07-1", "979-11-7464-357-5", "979-12-81900-11-0",  // 979 groups
        "979-8-6389-4207-6",  // 979-8, United States
    ])
    func hyphenatesAcrossRegistrationGroups(expected: String) throws {
        let isbn = try ISBN13(validating: expected)
        #expect(isbn.hyphenated == expected)
        let parts = try #require(isbn.parts)
        #expect(parts.hyphenated == expected)
        #expect(isbn.registrationGroup == parts.prefix + "-" + parts.group)
    }

    @Test func exposesTheParts() throws {
        let parts = try #require(try ISBN13(validating: "9780306406157").parts)
        #expect(parts == ISBNParts(prefix: "978", group: "0", registrant: "306", publication: "40615", checkDigit: "7"))
    }

    @Test func isbn10HyphenatesWithoutPrefix() throws {
        #expect(try ISBN10(validating: "0306406152").hyphenated == "0-306-40615-2")
        #expect(try ISBN10(validating: "125031318X").hyphenated == "1-250-31318-X")
        #expect(try ISBN10(validating: "9953282102").hyphenated == "9953-28-210-2")
    }

    @Test func namesTheRegistrationGroup() throws {
        #expect(try ISBN13(validating: "9780306406157").registrationGroupName == "English language")
        #expect(try ISBN13(validating: "9783161484100").registrationGroupName == "German language")
        #expect(try ISBN13(validating: "9789993725435").registrationGroupName == "Macau")
        #expect(try ISBN13(validating: "9791090636071").registrationGroupName == "France")
    }

    /// Ranges the agency has not assigned: split as far as the table knows, never wrongly.
    @Test func fallsBackForUnassignedRanges() throws {
        let outsideGroups = try ISBN13(validating: "9786834497865")
        #expect(outsideGroups.parts == nil && outsideGroups.registrationGroup == nil)
        #expect(outsideGroups.hyphenated == "978-683449786-5")
        let unassignedRegistrant = try ISBN13(validating: "9789656341682")
        #expect(unassignedRegistrant.parts == nil)
        #expect(unassignedRegistrant.registrationGroup == "978-965")
        #expect(unassignedRegistrant.hyphenated == "978-965-634168-2")
        for (digits, hyphenated) in [("9791234567896", "979-12-3456789-6"), ("9789999860864", "978-99998-6086-4")] {
            let isbn = try ISBN13(validating: digits)
            #expect(isbn.parts == nil && isbn.hyphenated == hyphenated)
        }
        // 978-642 is a three-digit group by the agency's rules, but no agency has it yet.
        let noAgencyYet = try ISBN13(validating: "9786427983584")
        #expect(noAgencyYet.hyphenated == "978-642-798358-4")
        #expect(noAgencyYet.registrationGroup == nil && noAgencyYet.registrationGroupName == nil)
    }

    /// Every registration group of both prefixes is in the table, sorted and non-overlapping.
    @Test func tableCoversEveryGroupAndIsSorted() throws {
        let entries = ISBNRangeTable.entries
        #expect(entries.first == 0)
        #expect(zip(entries, entries.dropFirst()).allSatisfy { $0 / 100 < $1 / 100 })
        #expect(ISBNRangeTable.agencies.count >= 280)
        #expect(ISBNRangeTable.agencies.keys.contains("979-8") && ISBNRangeTable.agencies.keys.contains("978-99937"))
        #expect(ISBN13.rangeTableDate.contains("20"))
        // Each group's first valid ISBN lands in that group.
        for group in ISBNRangeTable.agencies.keys {
            let body = group.replacingOccurrences(of: "-", with: "")
            let first = body + String(repeating: "0", count: 12 - body.count)
            let isbn = try ISBN13(validating: first + String(CheckDigit.gs1(first.digitValues)))
            #expect(isbn.registrationGroup == group, "\(group)")
        }
    }
}
