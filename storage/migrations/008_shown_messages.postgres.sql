-- PostgreSQL's 008: the rows of 008_shown_messages.sqlite.sql (the messages that show each
-- table, kept by the Telegram side), filled from the tables' state and "shown" columns.
CREATE TABLE shown (
    table_id    BIGINT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    chat        BIGINT NOT NULL,
    kind        TEXT NOT NULL
                CHECK (kind IN ('table', 'hand', 'vote', 'sheet', 'reminder', 'live')),
    part        BIGINT NOT NULL,
    message_id  BIGINT NOT NULL,
    digest      TEXT,
    note        TEXT,
    PRIMARY KEY (table_id, chat, kind, part)
);

INSERT INTO shown (table_id, chat, kind, part, message_id, digest, note)
WITH t AS (
    SELECT id, chat_id, status,
           CASE WHEN json_valid(shown) THEN shown::jsonb END AS shown,
           CASE WHEN json_valid(state) AND jsonb_typeof(state::jsonb) = 'object'
                THEN state::jsonb ELSE '{}'::jsonb END AS state
    FROM tables
), slots (table_id, shown, chat, kind, part, message_id, note) AS (
    SELECT id, shown, state -> 'table_slot' ->> 'chat_id', 'table',
           CASE WHEN status IN ('lobby', 'expired', 'cancelled') THEN '0'
                ELSE state ->> 'deal_no' END,
           state -> 'table_slot' ->> 'message_id', NULL
    FROM t
    UNION ALL
    SELECT id, NULL, chat_id::text, 'table', '0', state ->> 'lobby_message', NULL FROM t
    UNION ALL
    SELECT t.id, t.shown, h.value ->> 'chat_id', 'hand', t.state ->> 'deal_no',
           h.value ->> 'message_id', NULL
    FROM t, jsonb_each(CASE WHEN jsonb_typeof(t.state -> 'hand_slots') = 'object'
                            THEN t.state -> 'hand_slots' ELSE '{}' END) AS h
    UNION ALL
    SELECT t.id, t.shown, e.value -> 'table_slot' ->> 'chat_id', 'table',
           e.value ->> 'deal_no', e.value -> 'table_slot' ->> 'message_id', NULL
    FROM t, jsonb_array_elements(CASE WHEN jsonb_typeof(t.state -> 'unshown_ends') = 'array'
                                      THEN t.state -> 'unshown_ends' ELSE '[]' END) AS e
    UNION ALL
    SELECT t.id, t.shown, h.value ->> 'chat_id', 'hand', e.value ->> 'deal_no',
           h.value ->> 'message_id', NULL
    FROM t, jsonb_array_elements(CASE WHEN jsonb_typeof(t.state -> 'unshown_ends') = 'array'
                                      THEN t.state -> 'unshown_ends' ELSE '[]' END) AS e,
         jsonb_each(CASE WHEN jsonb_typeof(e.value -> 'hand_slots') = 'object'
                         THEN e.value -> 'hand_slots' ELSE '{}' END) AS h
    UNION ALL
    SELECT id, shown, state -> 'vote' ->> 'chat_id', 'vote', state ->> 'deal_no',
           state -> 'vote' ->> 'message_id', NULL
    FROM t
    UNION ALL
    SELECT id, NULL, chat_id::text, 'sheet', '0', state ->> 'sheet_message',
           CASE WHEN state ->> 'sheet_photo' = 'true' THEN 'photo' ELSE 'text' END
    FROM t
    UNION ALL
    SELECT id, NULL, state -> 'reminder' ->> 'chat_id', 'reminder', '0',
           state -> 'reminder' ->> 'message_id', NULL
    FROM t
    UNION ALL
    SELECT t.id, NULL, l.value -> 0 ->> 'chat_id', 'live', l.value -> 0 ->> 'message_id',
           l.value -> 0 ->> 'message_id', l.value ->> 1
    FROM t, jsonb_array_elements(CASE WHEN jsonb_typeof(t.state -> 'live_buttons') = 'array'
                                      THEN t.state -> 'live_buttons' ELSE '[]' END) AS l
)
SELECT table_id, chat::bigint, kind, part::bigint, message_id::bigint,
       shown ->> (chat || ':' || message_id), note
FROM slots
WHERE chat IS NOT NULL AND part IS NOT NULL AND message_id IS NOT NULL
ON CONFLICT DO NOTHING;

UPDATE tables SET state = jsonb_set(state::jsonb, '{lobby_unshown}', 'true')::text
WHERE CASE WHEN json_valid(state) AND jsonb_typeof(state::jsonb) = 'object'
           THEN (state::jsonb ->> 'lobby_message') IS NOT NULL ELSE false END;

ALTER TABLE tables DROP COLUMN shown;
