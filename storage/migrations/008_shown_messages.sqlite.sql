-- The Telegram messages that show each table, kept by the Telegram side in rows of their
-- own instead of inside the table's state: which message (chat, message id) shows which
-- part of the table, and a digest of what it last showed (a restart edits only the
-- messages that differ). "part" tells the messages of one kind apart: the deal number for
-- the group's table message (0: the lobby), a hand and a vote to stop; the message id of
-- a group message whose buttons end with the game ("live", "note" is its text); 0 for the
-- sheet ("note": 'photo' or 'text') and the turn notification. The ids and digests the
-- state and the "shown" column held move here, so an upgraded bot edits what it sent.
CREATE TABLE shown (
    table_id    INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    chat        INTEGER NOT NULL,
    kind        TEXT NOT NULL
                CHECK (kind IN ('table', 'hand', 'vote', 'sheet', 'reminder', 'live')),
    part        INTEGER NOT NULL,
    message_id  INTEGER NOT NULL,
    digest      TEXT,
    note        TEXT,
    PRIMARY KEY (table_id, chat, kind, part)
);

INSERT INTO shown (table_id, chat, kind, part, message_id, digest, note)
WITH t AS (
    SELECT id, chat_id, status, CASE WHEN json_valid(shown) THEN shown END AS shown,
           CASE WHEN json_valid(state) THEN state ELSE '{}' END AS state
    FROM tables
), slots (table_id, shown, chat, kind, part, message_id, note) AS (
    SELECT id, shown, json_extract(state, '$.table_slot.chat_id'), 'table',
           CASE WHEN status IN ('lobby', 'expired', 'cancelled') THEN 0
                ELSE json_extract(state, '$.deal_no') END,
           json_extract(state, '$.table_slot.message_id'), NULL
    FROM t
    UNION ALL
    SELECT id, NULL, chat_id, 'table', 0, json_extract(state, '$.lobby_message'), NULL FROM t
    UNION ALL
    SELECT t.id, t.shown, json_extract(h.value, '$.chat_id'), 'hand',
           json_extract(t.state, '$.deal_no'), json_extract(h.value, '$.message_id'), NULL
    FROM t, json_each(t.state, '$.hand_slots') AS h
    UNION ALL
    SELECT t.id, t.shown, json_extract(e.value, '$.table_slot.chat_id'), 'table',
           json_extract(e.value, '$.deal_no'),
           json_extract(e.value, '$.table_slot.message_id'), NULL
    FROM t, json_each(t.state, '$.unshown_ends') AS e
    UNION ALL
    SELECT t.id, t.shown, json_extract(h.value, '$.chat_id'), 'hand',
           json_extract(e.value, '$.deal_no'), json_extract(h.value, '$.message_id'), NULL
    FROM t, json_each(t.state, '$.unshown_ends') AS e, json_each(e.value, '$.hand_slots') AS h
    UNION ALL
    SELECT id, shown, json_extract(state, '$.vote.chat_id'), 'vote',
           json_extract(state, '$.deal_no'), json_extract(state, '$.vote.message_id'), NULL
    FROM t
    UNION ALL
    SELECT id, NULL, chat_id, 'sheet', 0, json_extract(state, '$.sheet_message'),
           CASE WHEN json_extract(state, '$.sheet_photo') THEN 'photo' ELSE 'text' END
    FROM t
    UNION ALL
    SELECT id, NULL, json_extract(state, '$.reminder.chat_id'), 'reminder', 0,
           json_extract(state, '$.reminder.message_id'), NULL
    FROM t
    UNION ALL
    SELECT t.id, NULL, json_extract(l.value, '$[0].chat_id'), 'live',
           json_extract(l.value, '$[0].message_id'), json_extract(l.value, '$[0].message_id'),
           json_extract(l.value, '$[1]')
    FROM t, json_each(t.state, '$.live_buttons') AS l
)
SELECT table_id, chat, kind, part, message_id,
       json_extract(shown, '$."' || chat || ':' || message_id || '"'), note
FROM slots
WHERE chat IS NOT NULL AND part IS NOT NULL AND message_id IS NOT NULL
ON CONFLICT DO NOTHING;

-- a started game's lobby still to be closed is named by a flag now, not by its message id
UPDATE tables SET state = json_set(state, '$.lobby_unshown', json('true'))
WHERE CASE WHEN json_valid(state) THEN json_extract(state, '$.lobby_message') IS NOT NULL
           ELSE 0 END;

-- the old column is emptied, not dropped: DROP COLUMN needs SQLite 3.35, older systems
-- must migrate too
UPDATE tables SET shown = NULL;
