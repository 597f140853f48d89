"""Shared pytest setup: the markers of the suite (ARCHITECTURE.md rule 7)."""


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs an NVIDIA GPU; skipped without one")
    config.addinivalue_line("markers", "opencl: needs an OpenCL platform with a device; skipped without one")
