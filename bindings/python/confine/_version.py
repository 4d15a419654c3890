# SPDX-License-Identifier: MIT
# The package's version is libconfine's: the ctypes layouts in _ffi.py are
# those of exactly this library version, which is checked when the library
# is loaded. Keep it equal to meson.build's project version (a Meson test
# checks that it is).
__version__ = "0.3.0"
