import GRDB

// "v2-search": SQLite FTS5 full-text indexes over works and items, kept in step with
// their tables by triggers, so every writer (scans, imports, other processes) updates
// them without Swift code having to remember.
//
// Each FTS row keeps its own copy of the text plus the key it belongs to (UNINDEXED),
// and shares the table row's rowid so a trigger can delete it by rowid in O(log n).
// Results are joined back by key, never by rowid alone, so even a VACUUM that renumbered
// rowids could not make a search return the wrong book.
extension Schema {
    static func createSearchIndexes(_ db: Database) throws {
        // unicode61 folds case and strips diacritics ("Garcia" finds "García"); the
        // prefix indexes make "harr pott" cheap.
        let tokenizer = "tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'"

        try db.execute(sql: """
            CREATE VIRTUAL TABLE worksSearch USING fts5(
                workKey UNINDEXED, title, authors, publisher, \(tokenizer));
            INSERT INTO worksSearch(rowid, workKey, title, authors, publisher)
                SELECT rowid, workKey, title, authors, COALESCE(publisher, '') FROM works;
            CREATE TRIGGER works_search_insert AFTER INSERT ON works BEGIN
                INSERT INTO worksSearch(rowid, workKey, title, authors, publisher)
                VALUES (new.rowid, new.workKey, new.title, new.authors, COALESCE(new.publisher, ''));
            END;
            CREATE TRIGGER works_search_delete AFTER DELETE ON works BEGIN
                DELETE FROM worksSearch WHERE rowid = old.rowid;
            END;
            CREATE TRIGGER works_search_update AFTER UPDATE OF workKey, title, authors, publisher ON works BEGIN
                DELETE FROM worksSearch WHERE rowid = old.rowid;
                INSERT INTO worksSearch(rowid, workKey, title, authors, publisher)
                VALUES (new.rowid, new.workKey, new.title, new.authors, COALESCE(new.publisher, ''));
            END;
            """)

        try db.execute(sql: """
            CREATE VIRTUAL TABLE itemsSearch USING fts5(
                itemId UNINDEXED, title, authors, notes, \(tokenizer));
            INSERT INTO itemsSearch(rowid, itemId, title, authors, notes)
                SELECT rowid, id, title, authors, COALESCE(notes, '') FROM items;
            CREATE TRIGGER items_search_insert AFTER INSERT ON items BEGIN
                INSERT INTO itemsSearch(rowid, itemId, title, authors, notes)
                VALUES (new.rowid, new.id, new.title, new.authors, COALESCE(new.notes, ''));
            END;
            CREATE TRIGGER items_search_delete AFTER DELETE ON items BEGIN
                DELETE FROM itemsSearch WHERE rowid = old.rowid;
            END;
            CREATE TRIGGER items_search_update AFTER UPDATE OF id, title, authors, notes ON items BEGIN
                DELETE FROM itemsSearch WHERE rowid = old.rowid;
                INSERT INTO itemsSearch(rowid, itemId, title, authors, notes)
                VALUES (new.rowid, new.id, new.title, new.authors, COALESCE(new.notes, ''));
            END;
            """)
    }
}
