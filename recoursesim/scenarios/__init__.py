"""Scenario files shipped with recoursesim, read with ``importlib.resources`` (``recoursesim run NAME``)."""
