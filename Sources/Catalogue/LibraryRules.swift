import BookCodes
import Foundation

// The library's rules as pure functions on its value types: every store (SQLite, PostgreSQL)
// reads the rows, calls these, and writes what they return, so the stores differ only in SQL.

extension Item {
    /// A new item for `work`'s edition `isbn`: unread, owned in `format` when one is given.
    public static func new(isbn: ISBN13, work: Work, listId: String, userId: String, owned format: OwnedFormat?,
                           station: String, addedAt: Date, now: Date) -> Item {
        Item(id: UUID().uuidString, listId: listId, userId: userId, bookId: work.workKey, isbn: isbn.digits,
             title: work.title, authors: work.authors, coverImageUrl: work.coverImageUrl, description: work.description,
             pageCount: work.pageCount, genre: work.genre, categories: work.categories, status: .unread, liked: false,
             rating: nil, notes: nil, currentPage: nil, startedReadingAt: nil, finishedReadingAt: nil,
             addedAt: addedAt, updatedAt: now, isOwned: format != nil, ownedFormat: format, ownedAt: format != nil ? now : nil,
             station: station)
    }

    /// A wanted (not owned) edition becomes owned, by the station that scanned it.
    public mutating func markOwned(format: OwnedFormat, station: String, now: Date) {
        isOwned = true
        ownedFormat = format
        ownedAt = now
        updatedAt = now
        self.station = station
    }

    /// The list an import row files its book in: the row's own list, its default list, else by its status.
    public static func importListId(_ state: ImportedState, userId: String) -> String {
        state.listId ?? "\(userId)_\((state.listType ?? (state.status == .read ? .completed : .toRead)).rawValue)"
    }

    /// Whether an import row's reading state applies: the row carries some, and the item is
    /// new or one the user has not touched (unread, no rating), so a re-run changes nothing.
    /// Checked before the row is read again: most rows of an ISBN list carry no state.
    public func takesImported(_ state: ImportedState) -> Bool {
        status == .unread && rating == nil
            && (state.status != nil && state.status != .unread || state.rating != nil || state.notes != nil || state.dateAdded != nil)
    }

    /// An import row's reading state applied (when `takesImported`); returns the status change
    /// for the reading counters (nil: none).
    public mutating func applyImported(_ state: ImportedState, isNew: Bool, now: Date) -> (from: ReadingStatus, to: ReadingStatus)? {
        guard takesImported(state) else { return nil }
        var move: (from: ReadingStatus, to: ReadingStatus)?
        if let newStatus = state.status, newStatus != status {
            move = (status, newStatus)
            status = newStatus
            if newStatus == .read { finishedReadingAt = state.dateRead ?? now }
            if newStatus == .reading { startedReadingAt = now }
        }
        rating = state.rating ?? rating
        notes = notes ?? state.notes
        if isNew, let added = state.dateAdded { addedAt = added }
        updatedAt = now
        return move
    }
}

extension PendingLookup {
    /// The queue's row after another failed lookup of `isbn`: a new row, or `existing` one
    /// attempt further with both intents kept (a scan's "own it" is never lost to a later lookup).
    public static func queued(_ existing: PendingLookup?, isbn: ISBN13, reason: String, source: String, nextRetryAt: Date,
                              intent: PendingIntent, now: Date) -> PendingLookup {
        var row: PendingLookup
        if var existing {
            existing.attempts += 1
            existing.intent = existing.intent.merged(with: intent)
            row = existing
        } else {
            row = PendingLookup(isbn: isbn.digits, reason: reason, source: source, attempts: 1, intent: intent,
                                queuedAt: now, lastAttemptAt: now, nextRetryAt: nextRetryAt)
        }
        row.reason = reason
        row.source = source
        row.lastAttemptAt = now
        row.nextRetryAt = nextRetryAt
        return row
    }
}
