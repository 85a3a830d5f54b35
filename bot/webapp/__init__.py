"""The table as a Telegram Mini App: the signed user, his view of the table as JSON, and the
aiohttp server of the page and its WebSocket (docs/webapp.md)."""
