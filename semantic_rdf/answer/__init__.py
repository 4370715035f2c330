"""The answer path: question -> linked entities -> gate -> cited facts -> recorded decision."""
