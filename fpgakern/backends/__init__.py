"""Code generators that turn the kernel IR into build artifacts (HLS C++, RTL, host code)."""
