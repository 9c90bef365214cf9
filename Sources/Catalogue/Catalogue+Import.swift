import BookCodes
import Foundation
import GRDB

/// What an import asked for one book, beyond its ISBN and work.
public struct ImportedState: Sendable, Hashable {
    public var isOwned: Bool
    public var listType: ListType?
    public var status: ReadingStatus?
    public var rating: Int?
    public var dateRead: Date?
    public var dateAdded: Date?
    public var notes: String?

    public init(isOwned: Bool, listType: ListType? = nil, status: ReadingStatus? = nil, rating: Int? = nil, dateRead: Date? = nil, dateAdded: Date? = nil, notes: String? = nil) {
        self.isOwned = isOwned
        self.listType = listType
        self.status = status
        self.rating = rating
        self.dateRead = dateRead
        self.dateAdded = dateAdded
        self.notes = notes
    }
}

extension Catalogue {
    /// Files an imported book: owned books go through `addOwned` (already owned, the free
    /// plan's limit), others become a not-owned item in their list. Reading state from the
    /// file is applied to a new item, or to an existing one the user has not touched
    /// (unread, no rating), so a re-run of the same file changes nothing.
    public func importBook(isbn: ISBN13, work: Work, state: ImportedState, now: Date = Date()) throws(LibraryError) -> AddOutcome {
        let listId = "\(userId)_\((state.listType ?? (state.status == .read ? .completed : .toRead)).rawValue)"
        let outcome: AddOutcome
        if state.isOwned {
            do { outcome = try addOwned(isbn: isbn, work: work, listId: listId, now: now) } catch { throw .catalogue(error) }
        } else {
            let userId = userId
            outcome = try libraryWrite { db in
                let mine = Item.filter(Column("userId") == userId)
                if let same = try mine.filter(Column("isbn") == isbn.digits || Column("bookId") == work.workKey).fetchOne(db) {
                    return .alreadyOwned(same)
                }
                let item = Item(
                    id: UUID().uuidString, listId: listId, userId: userId, bookId: work.workKey, isbn: isbn.digits,
                    title: work.title, authors: work.authors, coverImageUrl: work.coverImageUrl, description: work.description,
                    pageCount: work.pageCount, genre: work.genre, categories: work.categories, status: .unread, liked: false,
                    rating: nil, notes: nil, currentPage: nil, startedReadingAt: nil, finishedReadingAt: nil,
                    addedAt: state.dateAdded ?? now, updatedAt: now, isOwned: false, ownedFormat: nil, ownedAt: nil)
                try item.insert(db)
                try Self.adjustCount(listId: listId, by: 1, now: now, db)
                return .added(item)
            }
        }
        let item: Item
        switch outcome {
        case let .added(added): item = added
        case let .alreadyOwned(existing): item = existing
        case .libraryFull: return outcome
        }
        guard item.status == .unread, item.rating == nil,
              state.status != nil && state.status != .unread || state.rating != nil || state.notes != nil || state.dateAdded != nil
        else { return outcome }
        let userId = userId
        let updated = try libraryWrite { db -> Item in
            guard var row = try Item.fetchOne(db, key: item.id) else { return item }
            if let status = state.status, status != row.status {
                try Self.adjustReadingCounters(userId: userId, from: row.status, to: status, now: now, db)
                row.status = status
                if status == .read { row.finishedReadingAt = state.dateRead ?? now }
                if status == .reading { row.startedReadingAt = now }
            }
            row.rating = state.rating ?? row.rating
            row.notes = row.notes ?? state.notes
            if case .added = outcome, let added = state.dateAdded { row.addedAt = added }
            row.updatedAt = now
            try row.update(db)
            return try Item.fetchOne(db, key: row.id) ?? row
        }
        if case .added = outcome { return .added(updated) }
        return .alreadyOwned(updated)
    }
}
