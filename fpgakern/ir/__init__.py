"""Kernel IR: dtypes, the op table, the expression parser and the typed kernel graph."""
