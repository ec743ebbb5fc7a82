"""The scenario files bundled with recoursesim (``recoursesim run NAME``, ``recoursesim list scenarios``).

This folder is installed as the data package ``recoursesim.scenarios`` (see ``setup.py``); the files are
read with ``importlib.resources``. Copy any ``.toml`` here to start a scenario of your own.
"""
