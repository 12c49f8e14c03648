"""Run the polyops conformance kit against this plugin's backend with plain ``pytest``.

The kit is a pytest plugin installed with polyops; this only picks the backend.
"""


def pytest_configure(config):
    if not config.getoption("--polyops-backend"):
        config.option.polyops_backend = ["mybackend"]
