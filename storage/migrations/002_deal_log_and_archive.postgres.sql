-- PostgreSQL's 002: the tables of 002_deal_log_and_archive.sqlite.sql (a new PostgreSQL
-- database has no records to move into the deal log).

-- The game log per deal: one row per deal of a table (an entry of the record's "deals").
CREATE TABLE deals (
    table_id    BIGINT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    deal_no     INTEGER NOT NULL CHECK (deal_no >= 1),
    data        TEXT NOT NULL,          -- JSON: one deal of preferans-record/1
    PRIMARY KEY (table_id, deal_no)
);

-- Finished and stopped games, archived when they end: the whole pulka record.
CREATE TABLE games (
    table_id    BIGINT PRIMARY KEY REFERENCES tables (id) ON DELETE CASCADE,
    chat_id     BIGINT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('finished', 'stopped')),
    convention  TEXT NOT NULL,
    pulka       INTEGER NOT NULL,
    players     INTEGER NOT NULL,
    deals       INTEGER NOT NULL,       -- scored deals
    started_at  DOUBLE PRECISION NOT NULL,
    ended_at    DOUBLE PRECISION NOT NULL,
    record      TEXT NOT NULL,          -- JSON: preferans-record/1
    holders     TEXT NOT NULL           -- JSON: who held each seat from which deal on
);
CREATE INDEX games_by_chat ON games (chat_id, ended_at DESC);

-- One row per game and player, computed from the archived record.
CREATE TABLE game_players (
    table_id          BIGINT NOT NULL REFERENCES games (table_id) ON DELETE CASCADE,
    user_id           BIGINT NOT NULL,
    chat_id           BIGINT NOT NULL,
    seat              INTEGER NOT NULL,
    name              TEXT NOT NULL,
    deals             INTEGER NOT NULL,
    contracts_made    INTEGER NOT NULL,
    contracts_failed  INTEGER NOT NULL,
    miseres_made      INTEGER NOT NULL,
    miseres_failed    INTEGER NOT NULL,
    net_whists        DOUBLE PRECISION NOT NULL,
    whists_written    DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, user_id)
);
CREATE INDEX game_players_by_chat ON game_players (chat_id, user_id);
CREATE INDEX game_players_by_user ON game_players (user_id);
