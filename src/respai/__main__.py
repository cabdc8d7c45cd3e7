"""``python -m respai``: the same as the ``respai`` command."""

from respai.cli import entry

if __name__ == "__main__":  # not when a tool imports the module to read it
    entry()
