-- The game log per deal: one row per deal of a table (an entry of the record's "deals"),
-- so an accepted action rewrites only its own deal. tables.record keeps the rest of the
-- record (format, rules, players, start, stopped).
CREATE TABLE deals (
    table_id    INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    deal_no     INTEGER NOT NULL CHECK (deal_no >= 1),
    data        TEXT NOT NULL,          -- JSON: one deal of preferans-record/1
    PRIMARY KEY (table_id, deal_no)
) WITHOUT ROWID;

INSERT INTO deals (table_id, deal_no, data)
    SELECT t.id, CAST(d.key AS INTEGER) + 1, d.value
    FROM tables AS t, json_each(t.record, '$.deals') AS d
    WHERE t.record IS NOT NULL;

UPDATE tables SET record = json_remove(record, '$.deals') WHERE record IS NOT NULL;

-- Finished and stopped games, archived when they end: the whole pulka record.
CREATE TABLE games (
    table_id    INTEGER PRIMARY KEY REFERENCES tables (id) ON DELETE CASCADE,
    chat_id     INTEGER NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('finished', 'stopped')),
    convention  TEXT NOT NULL,
    pulka       INTEGER NOT NULL,
    players     INTEGER NOT NULL,
    deals       INTEGER NOT NULL,       -- scored deals
    started_at  REAL NOT NULL,
    ended_at    REAL NOT NULL,
    record      TEXT NOT NULL,          -- JSON: preferans-record/1
    holders     TEXT NOT NULL           -- JSON: who held each seat from which deal on
);
CREATE INDEX games_by_chat ON games (chat_id, ended_at DESC);

-- One row per game and player, computed from the archived record (bot/stats.py) when
-- the game is archived; python -m storage.archive --recompute rebuilds them.
CREATE TABLE game_players (
    table_id          INTEGER NOT NULL REFERENCES games (table_id) ON DELETE CASCADE,
    user_id           INTEGER NOT NULL,
    chat_id           INTEGER NOT NULL,
    seat              INTEGER NOT NULL,
    name              TEXT NOT NULL,
    deals             INTEGER NOT NULL,
    contracts_made    INTEGER NOT NULL,
    contracts_failed  INTEGER NOT NULL,
    miseres_made      INTEGER NOT NULL,
    miseres_failed    INTEGER NOT NULL,
    net_whists        REAL NOT NULL,    -- the game's settlement for this player
    whists_written    REAL NOT NULL,    -- whists he wrote on the others
    PRIMARY KEY (table_id, user_id)
);
CREATE INDEX game_players_by_chat ON game_players (chat_id, user_id);
CREATE INDEX game_players_by_user ON game_players (user_id);
