"""collx's measuring tools in one package: the sweeps (sweep/, sweeps.json),
the families' cost models (models/), plots (plots/) and tables (tables/),
and the demo report (report/).

    PYTHONPATH=python python3 -m collx --help
"""
