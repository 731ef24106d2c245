"""collx's version: the Python package's (pyproject.toml reads it here) and
the C library's (CMakeLists.txt's project(), include/collx.h); configure
(python/CMakeLists.txt) fails when they disagree."""
__version__ = "0.1.0"
