"""The command line: a typer app over the Python API, and its log rendering; no rating maths."""
