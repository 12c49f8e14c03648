"""The private numpy APIs this plugin uses: none.

Every kernel is written with numpy's (and ml_dtypes') public API, so nothing here goes
through `polyops.plugin.private`; ``PRIVATE`` is empty, and ``POLYOPS_HIDE_PRIVATE``
changes nothing on this backend.
"""

PRIVATE = ()
