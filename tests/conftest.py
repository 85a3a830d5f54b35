"""Hypothesis profiles: the suite draws the same examples on every run, so it fails only
when the code changes; ``--hypothesis-profile=explore`` draws new ones, many more, by hand."""

import os

from hypothesis import settings

# The bot opts in to PTB's time periods as timedelta when it builds its application
# (bot/app.py); tests that use the transport without an application run as it does.
os.environ["PTB_TIMEDELTA"] = "true"

settings.register_profile("default", derandomize=True, database=None)
settings.register_profile("explore", max_examples=2000, deadline=None)
settings.load_profile("default")
