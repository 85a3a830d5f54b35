"""The browser tests' Chromium: Debian's /usr/bin/chromium driven by Playwright, with no
network (Telegram's script is blocked): one browser per worker, a fresh context per test.

Without Chromium or Playwright the tests skip, saying why; under CI (``CI=true``) that fails.
"""

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.webapp.helpers import unlimited_presses  # the page taps at machine speed

__all__ = ["unlimited_presses"]

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Playwright's auto-waiting limit: generous, for a busy 2-core machine
TIMEOUT_MS = 30_000


def _missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "the playwright package is missing: pip install -e '.[test]'"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM}: apt-get install chromium (Debian) to run them"
    return None


ON_WORKERS_CHROMIUM = pytest.mark.asyncio(loop_scope="session")
"""Each browser test module's mark: its tests run in the session's event loop, where the
worker's one Chromium lives (Playwright's objects belong to the loop that started them)."""


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium() -> AsyncIterator[object]:
    """One headless Chromium for the worker's browser tests: starting it takes ~2 s of CPU,
    a fresh context per test (below) a few ms, and contexts share nothing."""
    reason = _missing()
    if reason is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but the browser tests cannot run: {reason}")  # a broken CI
        pytest.skip(reason)
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser
        finally:
            await browser.close()


@pytest_asyncio.fixture(loop_scope="session")
async def browser(chromium: Any) -> AsyncIterator[object]:
    """A fresh browser context (its own cookies, storage and cache), closed after the test."""
    from playwright.async_api import expect

    context = await chromium.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=2
    )
    context.set_default_timeout(TIMEOUT_MS)
    expect.set_options(timeout=TIMEOUT_MS)
    # nothing waits on the network: Telegram's optional script never loads here
    await context.route("**/telegram.org/**", lambda route: route.abort())
    try:
        yield context
    finally:
        await context.close()


STATIC = Path(__file__).resolve().parents[2] / "bot" / "webapp" / "static"


@pytest_asyncio.fixture(loop_scope="session")
async def server() -> AsyncIterator[object]:
    """The stand-in Mini App server (tests/browser/fake_table.py) on 127.0.0.1."""
    from tests.browser.fake_table import FakeTableServer

    srv = await FakeTableServer().start()
    yield srv
    await srv.stop()
