"""Scenario files shipped with recoursesim (also reachable as the top-level ``scenarios/`` folder)."""
