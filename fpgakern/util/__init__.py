"""Small helpers with no knowledge of kernels."""
