"""polyops backend plugin for OpenVINO.

This module is what the entry point loads: it must stay import-light, so it
only builds the plugin object; the kernels are imported on first selection.
"""

from polyops.plugin import BackendPlugin

plugin = BackendPlugin(name="openvino", package=__name__)

__all__ = ["plugin"]
