"""Orchestration: building kernel variants, in parallel, with their manifests."""
