"""The Mini App's tests: the per-user limit on frames off (tests/webapp/helpers.py)."""

from tests.webapp.helpers import unlimited_presses

__all__ = ["unlimited_presses"]
