-- Card ranks per player: 'latin' — J Q K A as on most decks and in the game
-- records, 'russian' — В Д К Т (валет, дама, король, туз) as preferans books write them.
ALTER TABLE users ADD COLUMN ranks TEXT NOT NULL DEFAULT 'latin'
    CHECK (ranks IN ('latin', 'russian'));
