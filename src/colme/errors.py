"""The error a configuration that cannot be run raises (its message names the key)."""


class ConfigError(ValueError):
    """A configuration value that cannot be run; the message names the key."""
