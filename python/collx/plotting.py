"""matplotlib without a display, set up once for every family's plots."""


def pyplot():
    """matplotlib.pyplot on the Agg backend (ImportError if not installed:
    Debian's python3-matplotlib)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt
