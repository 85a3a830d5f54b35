"""Rendering: every text, keyboard and sheet the bot shows (from the engine's views only)."""
