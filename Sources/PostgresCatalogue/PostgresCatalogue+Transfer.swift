import Catalogue
import Foundation

// Export and lossless restore (the SQLite catalogue's rules, Catalogue+Export).
extension PostgresCatalogue: LibraryTransferStore {
    public func snapshot(itemIds: [String]?) throws(LibraryError) -> LibrarySnapshot {
        let userId = userId
        return try libraryRead { db in
            let user = try Self.user(userId, db)
            var items = try db.records(Item.self, "WHERE \"userId\" = $1 ORDER BY \"addedAt\", id", [userId])
            if let itemIds {
                let wanted = Set(itemIds)
                items = items.filter { wanted.contains($0.id) }
            }
            let keys = Self.textArray(Array(Set(items.map(\.bookId))).sorted())
            let works = try db.records(Work.self, "WHERE \"workKey\" = ANY($1::text[]) ORDER BY \"workKey\"", [keys])
            let entries = try db.records(ISBNIndexEntry.self, "WHERE \"workKey\" = ANY($1::text[]) ORDER BY isbn", [keys])
            let lists = try db.records(BookList.self, "WHERE \"ownerId\" = $1 ORDER BY \"createdAt\", id", [userId])
            return LibrarySnapshot(user: user, lists: lists, items: items, works: works, isbnIndex: entries)
        }
    }

    /// Columns that are not the record's own fields (search folding, stations).
    private static let internalColumns: Set<String> = ["search", "foldedTitle", "foldedAuthors", "foldedNotes", "foldedPublisher", "station"]
    private static let dateColumns: Set<String> = ["createdAt", "updatedAt", "indexedAt", "addedAt", "ownedAt", "startedReadingAt",
                                                   "finishedReadingAt", "subscriptionUpdatedAt"]

    public func documents(_ collection: ExportCollection, keys: [String]) throws(LibraryError) -> [ExportDocument] {
        let table = switch collection {
        case .works: Work.table
        case .isbnIndex: ISBNIndexEntry.table
        case .items: Item.table
        case .lists: BookList.table
        case .users: User.table
        }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try libraryRead { db in
            let rows = try db.run("SELECT to_jsonb(r) FROM \(table) AS r WHERE r.\"\(collection.keyField)\" = ANY($1::text[])",
                                  [Self.textArray(keys)])
            let decoder = JSONDecoder()
            var documents: [ExportDocument] = []
            for row in rows {
                guard let json = row[0], let object = try? decoder.decode([String: StoredJSON].self, from: Data(json.utf8)),
                      case let .string(id)? = object[collection.keyField] else { continue }
                var fields: [String: JSONValue] = [:]
                for (column, value) in object where !Self.internalColumns.contains(column) {
                    fields[column] = value.exported(asDate: Self.dateColumns.contains(column), iso: iso)
                }
                documents.append(ExportDocument(id: id, fields: fields))
            }
            return documents.sorted { $0.id < $1.id }
        }
    }

    public func restore(_ snapshot: LibrarySnapshot, now: Date) throws(LibraryError) -> RestoreSummary {
        let userId = userId
        return try libraryWrite { db in
            var summary = RestoreSummary()
            let user = try Self.user(userId, db, forUpdate: true)
            // Works and editions not yet here, each kind in one statement (the first of a key wins).
            let knownWorks = Set(try db.run("SELECT \"workKey\" FROM works WHERE \"workKey\" = ANY($1::text[])",
                                            [Self.textArray(snapshot.works.map(\.workKey) + snapshot.isbnIndex.map(\.workKey))])
                .compactMap { $0.first ?? nil })
            var workKeys = knownWorks
            let newWorks = snapshot.works.filter { workKeys.insert($0.workKey).inserted }
            try db.saveAll(newWorks, extra: Self.folded, upsert: false, returning: false)
            var isbns = Set(try db.run("SELECT isbn FROM isbn_index WHERE isbn = ANY($1::text[])",
                                       [Self.textArray(snapshot.isbnIndex.map(\.isbn))]).compactMap { $0.first ?? nil })
            let newEntries = snapshot.isbnIndex.filter { workKeys.contains($0.workKey) && isbns.insert($0.isbn).inserted }
            try db.saveAll(newEntries, upsert: false, returning: false)
            var listIds: [String: String] = [:]
            for list in snapshot.lists {
                if list.isDefault {
                    listIds[list.id] = "\(userId)_\(list.listType.rawValue)"
                } else if let existing = try db.record(BookList.self, "WHERE id = $1", [list.id]), existing.ownerId == userId {
                    listIds[list.id] = existing.id
                } else {
                    var copy = list
                    copy.id = try db.record(BookList.self, "WHERE id = $1", [list.id]) != nil ? UUID().uuidString : list.id
                    copy.ownerId = userId
                    copy.ownerName = user.displayName
                    while try db.count("SELECT count(*) FROM lists WHERE \"shareCode\" = $1", [copy.shareCode]) > 0 {
                        copy.shareCode = BookList.randomShareCode()
                    }
                    try db.save(copy, upsert: false)
                    listIds[list.id] = copy.id
                }
            }
            var ownedRoom = Int.max
            if !user.isPro {
                ownedRoom = max(0, User.freeOwnedLimit - (try Self.ownedTotal(userId, db)))
            }
            // The user's editions and the item ids already taken, read once; each item then
            // decided in order on what the ones before it left, and all written in one statement.
            var present = Set(try db.run("SELECT isbn FROM items WHERE \"userId\" = $1 AND isbn = ANY($2::text[])",
                                         [userId, Self.textArray(snapshot.items.map(\.isbn))]).compactMap { $0.first ?? nil })
            var takenIds = Set(try db.run("SELECT id FROM items WHERE id = ANY($1::text[])",
                                          [Self.textArray(snapshot.items.map(\.id))]).compactMap { $0.first ?? nil })
            var restored: [Item] = []
            for var item in snapshot.items {
                guard present.insert(item.isbn).inserted else {
                    summary.alreadyPresent += 1
                    continue
                }
                if item.isOwned {
                    guard ownedRoom > 0 else {
                        present.remove(item.isbn)
                        summary.libraryFull += 1
                        continue
                    }
                    ownedRoom -= 1
                }
                item.userId = userId
                item.listId = listIds[item.listId] ?? "\(userId)_\(ListType.toRead.rawValue)"
                if !takenIds.insert(item.id).inserted {
                    item.id = UUID().uuidString
                    takenIds.insert(item.id)
                }
                restored.append(item)
                summary.added += 1
            }
            try db.saveAll(restored, extra: Self.folded, upsert: false, returning: false)
            _ = try db.run("""
                UPDATE lists SET "itemCount" = (SELECT count(*) FROM items WHERE items."listId" = lists.id) WHERE "ownerId" = $1
                """, [userId])
            _ = try db.run("""
                UPDATE users SET
                    "booksRead" = (SELECT count(*) FROM items WHERE "userId" = users.id AND status = 'read'),
                    "currentlyReading" = (SELECT count(*) FROM items WHERE "userId" = users.id AND status = 'reading'),
                    "updatedAt" = $1
                WHERE id = $2
                """, [RecordCoding.text(now), userId])
            return summary
        }
    }
}

/// One column of `to_jsonb(row)`, as an export field: timestamps (seconds since 1970) ISO 8601
/// UTC, integers as integers, booleans as booleans, string arrays as arrays.
private enum StoredJSON: Decodable {
    case null, bool(Bool), int(Int64), double(Double), string(String), array([String])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let flag = try? container.decode(Bool.self) { self = .bool(flag) }
        else if let number = try? container.decode(Int64.self) { self = .int(number) }
        else if let number = try? container.decode(Double.self) { self = .double(number) }
        else if let text = try? container.decode(String.self) { self = .string(text) }
        else { self = .array((try? container.decode([String].self)) ?? []) }
    }

    func exported(asDate: Bool, iso: ISO8601DateFormatter) -> JSONValue {
        switch self {
        case .null: .null
        case let .bool(flag): .bool(flag)
        case let .int(number): asDate ? .string(iso.string(from: Date(timeIntervalSince1970: Double(number)))) : .int(number)
        case let .double(number): asDate ? .string(iso.string(from: Date(timeIntervalSince1970: number))) : .double(number)
        case let .string(text): .string(text)
        case let .array(values): .array(values)
        }
    }
}
