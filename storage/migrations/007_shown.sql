-- What each kept-up-to-date message of a table last showed: a JSON object mapping
-- "chat_id:message_id" to a short digest of its text and buttons, written apart from the
-- table's state (after the message went out). A restart compares it with what the message
-- must show and edits only the messages that differ. NULL: nothing known (edit them all).
ALTER TABLE tables ADD COLUMN shown TEXT;
