"""The version of respai: the engine version every record and output names."""

__version__ = "0.5.0"
