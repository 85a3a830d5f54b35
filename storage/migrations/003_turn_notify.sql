-- Turn notifications per player: 'always' — a notifying message whenever the
-- turn passes to him (unless he acted moments ago), 'slow' — only the reminder before his
-- time runs out, 'never' — no notifying message at all.
ALTER TABLE users ADD COLUMN notify TEXT NOT NULL DEFAULT 'always'
    CHECK (notify IN ('always', 'slow', 'never'));
