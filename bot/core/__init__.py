"""The core: tables, their every change and what each change did (no Telegram here)."""
