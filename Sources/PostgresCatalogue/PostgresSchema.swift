import Catalogue
import Foundation

/// The PostgreSQL catalogue's schema as numbered migrations, applied in order, each recorded
/// in `rapidscan_migrations`. Every station runs `migrate` when it opens the catalogue: the
/// whole check-and-apply happens in one transaction holding `pg_advisory_xact_lock`, so two
/// stations starting at the same moment apply each migration once (the second waits, then
/// finds it done). A database migrated by a newer rapidscan is refused, unwritten.
///
/// Dates are `double precision` seconds since 1970 (a Swift `Date` exactly, as the SQLite
/// catalogue's round-trip); lists of strings are `jsonb` arrays. Tables a station writes to
/// carry a `station` column (items, processed files, imported rows): `''` until stations
/// are wired, and resume rows are keyed by station and path.
enum PostgresSchema {
    /// The advisory lock's key: "rapidscan" as a number, the same for every station.
    static let migrationLockKey: Int64 = 0x7261_7069_6473_6361

    struct Migration {
        let version: Int
        let name: String
        let sql: [String]
        /// Statements a server may refuse (an extension the role may not create): each is tried
        /// under a savepoint and skipped if it fails; what they add only makes queries faster.
        var optional: [String] = []
    }

    static let migrations: [Migration] = [
        Migration(version: 1, name: "catalogue", sql: [
            """
            CREATE TABLE works (
                "workKey" text PRIMARY KEY,
                "title" text NOT NULL,
                "authors" jsonb NOT NULL,
                "primaryAuthor" text NOT NULL,
                "coverImageUrl" text,
                "description" text,
                "genre" text,
                "categories" jsonb NOT NULL,
                "pageCount" integer,
                "publishDate" text,
                "publisher" text,
                "language" text NOT NULL,
                "editions" jsonb NOT NULL,
                "primaryIsbn" text NOT NULL,
                "editionCount" integer NOT NULL,
                "apiSource" text NOT NULL,
                "createdAt" double precision NOT NULL,
                "updatedAt" double precision NOT NULL,
                "totalReaders" integer NOT NULL DEFAULT 0,
                "averageRating" double precision,
                "ratingsCount" integer NOT NULL DEFAULT 0,
                "foldedTitle" text NOT NULL DEFAULT '',
                "foldedAuthors" text NOT NULL DEFAULT '',
                "foldedPublisher" text NOT NULL DEFAULT '',
                search tsvector GENERATED ALWAYS AS (
                    setweight(to_tsvector('simple', "foldedTitle"), 'A') || setweight(to_tsvector('simple', "foldedAuthors"), 'B')
                    || setweight(to_tsvector('simple', "foldedPublisher"), 'D')) STORED
            )
            """,
            "CREATE INDEX works_on_lower_title ON works (lower(title) text_pattern_ops)",
            "CREATE INDEX works_search ON works USING gin (search)",
            """
            CREATE TABLE isbn_index (
                "isbn" text PRIMARY KEY,
                "workKey" text NOT NULL REFERENCES works ON DELETE CASCADE ON UPDATE CASCADE,
                "format" text NOT NULL,
                "publisher" text,
                "publishDate" text,
                "indexedAt" double precision NOT NULL,
                "apiSource" text NOT NULL,
                "metadataScore" integer NOT NULL
            )
            """,
            "CREATE INDEX isbn_index_on_work_key ON isbn_index (\"workKey\")",
            """
            CREATE TABLE users (
                "id" text PRIMARY KEY,
                "email" text,
                "displayName" text NOT NULL,
                "photoURL" text,
                "authProvider" text NOT NULL,
                "isPro" boolean NOT NULL,
                "createdAt" double precision NOT NULL,
                "updatedAt" double precision NOT NULL,
                "booksRead" integer NOT NULL,
                "currentlyReading" integer NOT NULL,
                "hasCompletedOnboarding" boolean NOT NULL,
                "scanCount" integer NOT NULL,
                "reviewCount" integer NOT NULL,
                "subscriptionUpdatedAt" double precision
            )
            """,
            """
            CREATE TABLE lists (
                "id" text PRIMARY KEY,
                "name" text NOT NULL,
                "ownerId" text NOT NULL REFERENCES users ON DELETE CASCADE,
                "ownerName" text NOT NULL,
                "description" text,
                "bannerImageUrl" text,
                "isPublic" boolean NOT NULL,
                "shareCode" text NOT NULL UNIQUE,
                "listType" text NOT NULL,
                "isDefault" boolean NOT NULL,
                "itemCount" integer NOT NULL,
                "createdAt" double precision NOT NULL,
                "updatedAt" double precision NOT NULL
            )
            """,
            "CREATE INDEX lists_on_owner_id ON lists (\"ownerId\")",
            """
            CREATE TABLE items (
                "id" text PRIMARY KEY,
                "listId" text NOT NULL REFERENCES lists ON DELETE CASCADE,
                "userId" text NOT NULL REFERENCES users ON DELETE CASCADE,
                "bookId" text NOT NULL,
                "isbn" text NOT NULL,
                "title" text NOT NULL,
                "authors" jsonb NOT NULL,
                "coverImageUrl" text,
                "description" text,
                "pageCount" integer,
                "genre" text,
                "categories" jsonb,
                "status" text NOT NULL,
                "liked" boolean NOT NULL,
                "rating" integer,
                "notes" text,
                "currentPage" integer,
                "startedReadingAt" double precision,
                "finishedReadingAt" double precision,
                "addedAt" double precision NOT NULL,
                "updatedAt" double precision NOT NULL,
                "isOwned" boolean NOT NULL,
                "ownedFormat" text,
                "ownedAt" double precision,
                -- The station that added the item (NULL: before stations were recorded).
                "station" text,
                -- Words anywhere (the query language's free text): title, authors, notes.
                -- Words anywhere (the query language's free text), case and accents folded by
                -- the store (SearchFolding): title weighs most, then authors, then notes (FTS5's bm25 weights).
                "foldedTitle" text NOT NULL DEFAULT '',
                "foldedAuthors" text NOT NULL DEFAULT '',
                "foldedNotes" text NOT NULL DEFAULT '',
                search tsvector GENERATED ALWAYS AS (
                    setweight(to_tsvector('simple', "foldedTitle"), 'A') || setweight(to_tsvector('simple', "foldedAuthors"), 'B')
                    || setweight(to_tsvector('simple', "foldedNotes"), 'D')) STORED,
                UNIQUE ("userId", isbn)
            )
            """,
            "CREATE INDEX items_on_list_id ON items (\"listId\")",
            "CREATE INDEX items_on_user_book ON items (\"userId\", \"bookId\")",
            "CREATE INDEX items_on_user_owned_added ON items (\"userId\", \"isOwned\", \"addedAt\")",
            "CREATE INDEX items_search ON items USING gin (search)",
            "CREATE INDEX items_on_user_station ON items (\"userId\", station)",
            """
            CREATE TABLE pending_lookups (
                "isbn" text PRIMARY KEY,
                "reason" text NOT NULL,
                "source" text NOT NULL,
                "attempts" integer NOT NULL,
                "intent" jsonb NOT NULL,
                "queuedAt" double precision NOT NULL,
                "lastAttemptAt" double precision NOT NULL,
                "nextRetryAt" double precision NOT NULL
            )
            """,
            "CREATE INDEX pending_lookups_on_next_retry_at ON pending_lookups (\"nextRetryAt\")",
            """
            CREATE TABLE processed_files (
                "station" text NOT NULL DEFAULT '',
                "path" text NOT NULL,
                "size" bigint NOT NULL,
                "modifiedTime" double precision NOT NULL,
                "outcome" text NOT NULL,
                "processedAt" double precision NOT NULL,
                PRIMARY KEY (station, path)
            )
            """,
            """
            CREATE TABLE imported_rows (
                "station" text NOT NULL DEFAULT '',
                "fileHash" text NOT NULL,
                "line" integer NOT NULL,
                "outcome" text NOT NULL,
                PRIMARY KEY (station, "fileHash", line)
            )
            """,
            """
            CREATE TABLE not_found_codes (
                "isbn" text PRIMARY KEY,
                "origin" text NOT NULL,
                "firstSeenAt" double precision NOT NULL,
                "lastSeenAt" double precision NOT NULL,
                "times" integer NOT NULL
            )
            """,
            """
            CREATE TABLE spine_replies (
                photo_hash text NOT NULL,
                reader text NOT NULL,
                file text NOT NULL,
                readings text NOT NULL,
                input_tokens integer NOT NULL,
                output_tokens integer NOT NULL,
                truncated boolean NOT NULL,
                created_at double precision NOT NULL,
                PRIMARY KEY (photo_hash, reader)
            )
            """,
            """
            CREATE TABLE spine_readings (
                id bigserial PRIMARY KEY,
                photo_hash text NOT NULL,
                reader text NOT NULL,
                reading_index integer NOT NULL,
                file text NOT NULL,
                text text NOT NULL,
                decision text NOT NULL,
                distance double precision NOT NULL,
                work_key text,
                isbn13 text,
                title text,
                authors jsonb NOT NULL,
                status text NOT NULL,
                reason text,
                updated_at double precision NOT NULL,
                UNIQUE (photo_hash, reader, reading_index)
            )
            """,
            "CREATE INDEX spine_readings_on_status ON spine_readings (status, updated_at)",
        ]),
        // `library list` over a large library: the title and author sorts' first rows read
        // from an index (a --limit reads no more), status: from its own index, and author:'s
        // substring through trigrams when the server lets the role add pg_trgm.
        Migration(version: 2, name: "list-indexes", sql: [
            "CREATE INDEX items_on_user_status_added ON items (\"userId\", status, \"addedAt\")",
            "CREATE INDEX items_on_user_title ON items (\"userId\", (lower(title) COLLATE \"C\"), id)",
            "CREATE INDEX items_on_user_author ON items (\"userId\", (lower(authors->>0) COLLATE \"C\"), (lower(title) COLLATE \"C\"), id)",
        ], optional: [
            "CREATE EXTENSION IF NOT EXISTS pg_trgm",
            "CREATE INDEX items_on_authors_trigrams ON items USING gin (lower(authors::text) gin_trgm_ops)",
        ]),
        // Where each spine reading lies in its photo (SpineBox's JSON text; NULL: none known).
        Migration(version: 3, name: "spine-boxes", sql: [
            "ALTER TABLE spine_readings ADD COLUMN box text",
        ]),
        // A user's items and owned books counted by the server as they change (`library list
        // --limit`'s "20 of 100000" read one row instead of counting 100,000 index entries; the
        // free plan's limit reads it too). Triggers on each statement, so whatever writes items
        // (an add, a removal, a restore, `database copy`, SQL by hand) keeps them exact, in the
        // writer's transaction: concurrent stations serialize on the user's row, as every add does.
        Migration(version: 4, name: "item-counters", sql: [
            """
            ALTER TABLE users ADD COLUMN "itemTotal" bigint NOT NULL DEFAULT 0,
                ADD COLUMN "ownedTotal" bigint NOT NULL DEFAULT 0
            """,
            // No item written between the count and the triggers (writers wait for the commit).
            "LOCK TABLE items IN SHARE MODE",
            """
            UPDATE users SET "itemTotal" = c.items, "ownedTotal" = c.owned
            FROM (SELECT "userId", count(*) AS items, count(*) FILTER (WHERE "isOwned") AS owned FROM items GROUP BY "userId") AS c
            WHERE users.id = c."userId"
            """,
            // Inserted rows count up, deleted rows down, an update by its difference (an item made
            // owned): one statement-level trigger each, over the statement's rows at once.
            """
            CREATE FUNCTION rapidscan_count_inserted_items() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE users SET "itemTotal" = "itemTotal" + d.items, "ownedTotal" = "ownedTotal" + d.owned
                FROM (SELECT "userId", count(*) AS items, count(*) FILTER (WHERE "isOwned") AS owned
                      FROM counted_new GROUP BY "userId") AS d
                WHERE users.id = d."userId";
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE FUNCTION rapidscan_count_deleted_items() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE users SET "itemTotal" = "itemTotal" - d.items, "ownedTotal" = "ownedTotal" - d.owned
                FROM (SELECT "userId", count(*) AS items, count(*) FILTER (WHERE "isOwned") AS owned
                      FROM counted_old GROUP BY "userId") AS d
                WHERE users.id = d."userId";
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE FUNCTION rapidscan_count_updated_items() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE users SET "itemTotal" = "itemTotal" + d.items, "ownedTotal" = "ownedTotal" + d.owned
                FROM (SELECT "userId", sum(items) AS items, sum(owned) AS owned FROM (
                          SELECT "userId", 1 AS items, "isOwned"::int AS owned FROM counted_new
                          UNION ALL SELECT "userId", -1, -("isOwned"::int) FROM counted_old) AS changes
                      GROUP BY "userId") AS d
                WHERE users.id = d."userId" AND (d.items <> 0 OR d.owned <> 0);
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER items_counted_on_insert AFTER INSERT ON items REFERENCING NEW TABLE AS counted_new
            FOR EACH STATEMENT EXECUTE FUNCTION rapidscan_count_inserted_items()
            """,
            """
            CREATE TRIGGER items_counted_on_delete AFTER DELETE ON items REFERENCING OLD TABLE AS counted_old
            FOR EACH STATEMENT EXECUTE FUNCTION rapidscan_count_deleted_items()
            """,
            """
            CREATE TRIGGER items_counted_on_update AFTER UPDATE ON items REFERENCING OLD TABLE AS counted_old NEW TABLE AS counted_new
            FOR EACH STATEMENT EXECUTE FUNCTION rapidscan_count_updated_items()
            """,
            """
            CREATE FUNCTION rapidscan_count_truncated_items() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE users SET "itemTotal" = 0, "ownedTotal" = 0;
                RETURN NULL;
            END
            $$
            """,
            "CREATE TRIGGER items_counted_on_truncate AFTER TRUNCATE ON items FOR EACH STATEMENT EXECUTE FUNCTION rapidscan_count_truncated_items()",
        ]),
        // The full-text and trigram indexes without GIN's pending list: with it, new entries wait
        // in an unsorted list (up to 4 MB) that every search reads whole until a vacuum merges
        // it. Over 100,000 books, `library list writer 4242` spent 17.9 ms in the index scan with
        // 273 pending pages and 2.8 ms without; an add pays its few index entries at once instead.
        Migration(version: 5, name: "gin-without-pending-list", sql: [
            "ALTER INDEX items_search SET (fastupdate = off)",
            "ALTER INDEX works_search SET (fastupdate = off)",
        ], optional: [
            // What is pending now, merged (needs the index's owner; a vacuum does it otherwise).
            "SELECT gin_clean_pending_list('items_search')",
            "SELECT gin_clean_pending_list('works_search')",
            // The trigram index exists only where the role could add pg_trgm (migration 2).
            "ALTER INDEX items_on_authors_trigrams SET (fastupdate = off)",
            "SELECT gin_clean_pending_list('items_on_authors_trigrams')",
        ]),
    ]

    /// Whether every migration this rapidscan knows (and no other) is recorded and the user exists:
    /// one statement, no lock (what it reads was committed under the lock). Anything else — a new
    /// database, a migration to apply, a newer schema, a failure — leaves it to `migrate`.
    static func isCurrent(_ connection: PostgresConnection, withUser userId: String) -> Bool {
        guard let rows = try? connection.run(
            "SELECT m.version, EXISTS (SELECT 1 FROM users WHERE id = $1) FROM rapidscan_migrations AS m", [userId]) else { return false }
        let versions = Set(rows.compactMap { row in row.first.flatMap { $0 }.flatMap { Int($0) } })
        return versions == Set(migrations.map(\.version)) && rows.allSatisfy { $0.count == 2 && $0[1] == "t" }
    }

    /// Applies every migration not yet recorded, under the advisory lock, in one transaction.
    /// Returns the versions it applied (none when another station had already done it).
    @discardableResult
    static func migrate(_ connection: PostgresConnection) throws(CatalogueError) -> [Int] {
        let known = Set(migrations.map(\.version))
        let outcome: (applied: [Int], newer: Int?)
        do {
            outcome = try connection.transaction { db -> (applied: [Int], newer: Int?) in
                _ = try db.run("SELECT pg_advisory_xact_lock($1)", [String(migrationLockKey)])
                _ = try db.run("""
                    CREATE TABLE IF NOT EXISTS rapidscan_migrations (
                        version integer PRIMARY KEY, name text NOT NULL, applied_at double precision NOT NULL)
                    """, [])
                let done = Set(try db.run("SELECT version FROM rapidscan_migrations", []).compactMap { row in row.first.flatMap { $0 }.flatMap { Int($0) } })
                // A newer rapidscan's schema: nothing is written, the user is told to upgrade.
                if let newer = done.subtracting(known).max() { return ([], newer) }
                var applied: [Int] = []
                for migration in migrations where !done.contains(migration.version) {
                    for statement in migration.sql { _ = try db.run(statement, []) }
                    for statement in migration.optional {
                        _ = try db.run("SAVEPOINT optional_step", [])
                        do { _ = try db.run(statement, []) } catch { _ = try db.run("ROLLBACK TO SAVEPOINT optional_step", []) }
                        _ = try db.run("RELEASE SAVEPOINT optional_step", [])
                    }
                    _ = try db.run("INSERT INTO rapidscan_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                                   [String(migration.version), migration.name, String(Date().timeIntervalSince1970)])
                    applied.append(migration.version)
                }
                return (applied, nil)
            }
        } catch let failure as PostgresConnection.Failure {
            throw .database(connection.address.location + ": " + failure.message)
        } catch {
            throw .database(connection.address.location + ": \(error)")
        }
        if let newer = outcome.newer {
            throw .newerVersion(path: connection.address.location, detail: "schema migration \(newer) unknown to this rapidscan")
        }
        return outcome.applied
    }
}
