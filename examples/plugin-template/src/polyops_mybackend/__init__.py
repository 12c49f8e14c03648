"""polyops backend plugin for mybackend.

The entry point loads this module: keep it import-light (no framework import);
the kernel modules are imported when the backend is first selected.
"""

from polyops.plugin import BackendPlugin

plugin = BackendPlugin(name="mybackend", package=__name__)

# Known conformance failures, each with its reason: {"<case id>": "<why>"}.
plugin.expected_failures = {}

__all__ = ["plugin"]
