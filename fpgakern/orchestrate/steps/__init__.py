"""The build steps, one module each; ``fpgakern.orchestrate.step.steps()`` finds them."""
