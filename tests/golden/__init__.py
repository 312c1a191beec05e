"""Golden files of generated code; see regenerate.py."""
