"""Hypothesis profiles: the suite draws the same examples on every run, so it fails only
when the code changes; ``--hypothesis-profile=explore`` draws new ones, many more, by hand."""

from hypothesis import settings

settings.register_profile("default", derandomize=True, database=None)
settings.register_profile("explore", max_examples=2000, deadline=None)
settings.load_profile("default")
