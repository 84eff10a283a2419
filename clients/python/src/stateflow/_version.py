"""The version of this package (``stateflow.__version__``), read by the build backend too."""

__version__ = "0.1.0"
