-- A forced card plays itself: 1 — when a player has exactly one legal card, the
-- bot plays it for him after a short pause (and the last trick plays itself), 0 — he
-- always presses it himself.
ALTER TABLE users ADD COLUMN autoplay INTEGER NOT NULL DEFAULT 1
    CHECK (autoplay IN (0, 1));
