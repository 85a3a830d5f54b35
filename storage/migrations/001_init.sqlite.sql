-- Users the bot has met, and whether it may write to them privately.
CREATE TABLE users (
    user_id     INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    lang        TEXT NOT NULL DEFAULT 'ru',
    private_ok  INTEGER NOT NULL DEFAULT 0,
    updated_at  REAL NOT NULL
);

-- One row per table (lobby, game in progress or finished game).
CREATE TABLE tables (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id     INTEGER NOT NULL,
    owner_id    INTEGER NOT NULL,
    status      TEXT NOT NULL
                CHECK (status IN ('lobby', 'playing', 'over', 'expired', 'cancelled')),
    settings    TEXT NOT NULL,          -- JSON: TableSettings
    state       TEXT NOT NULL,          -- JSON: seats, message ids, UI state
    record      TEXT,                   -- JSON: preferans-record/1 (Game.to_record())
    move        INTEGER NOT NULL DEFAULT 0,
    deadline    REAL,                   -- turn timeout / lobby expiry (unix time)
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL
);

-- One open table (lobby or game) per group at a time.
CREATE UNIQUE INDEX tables_one_open_per_chat ON tables (chat_id)
    WHERE status IN ('lobby', 'playing');

-- Who sits where (the JSON state holds the same; this is for queries and integrity).
CREATE TABLE seats (
    table_id    INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    seat        INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    user_id     INTEGER NOT NULL REFERENCES users (user_id),
    PRIMARY KEY (table_id, seat)
);
CREATE INDEX seats_by_user ON seats (user_id);
