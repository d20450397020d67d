"""The semantics library (semantics/*.toml: what the simulator computes, and the goldens of the
generated tests), read by reader.py into the IR's `OpSemantics`."""
