-- Compact deal log. The deal rows of an archived game are dropped: games.record holds
-- the whole record, and reading the table takes its deals from there. Only games whose
-- archived record holds exactly the deal rows (the same number, each deal the same JSON)
-- lose them; any other keeps its rows. "deals" becomes an ordinary rowid table: as a
-- WITHOUT ROWID table each ~1 KB row spilt into an overflow page of its own.
CREATE TABLE deals_compact (
    table_id    INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    deal_no     INTEGER NOT NULL CHECK (deal_no >= 1),
    data        TEXT NOT NULL,          -- JSON: one deal of preferans-record/1
    PRIMARY KEY (table_id, deal_no)
);

INSERT INTO deals_compact (table_id, deal_no, data)
    SELECT d.table_id, d.deal_no, d.data FROM deals AS d
    WHERE d.table_id NOT IN (
        SELECT g.table_id FROM games AS g
        WHERE json_valid(g.record)
        AND json_array_length(g.record, '$.deals')
            = (SELECT COUNT(*) FROM deals AS e WHERE e.table_id = g.table_id)
        AND NOT EXISTS (
            SELECT 1 FROM deals AS e WHERE e.table_id = g.table_id
            AND (NOT json_valid(e.data)
                 OR json_extract(g.record, '$.deals[' || (e.deal_no - 1) || ']')
                    IS NOT json(e.data))
        )
    );

DROP TABLE deals;
ALTER TABLE deals_compact RENAME TO deals;
