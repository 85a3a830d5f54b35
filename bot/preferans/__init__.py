"""The Preferans rules engine: standard library only, no I/O, no global randomness."""
