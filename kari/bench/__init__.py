"""Affordance20Q benchmark directories: the typed model (model.py), loading, validation and game sampling."""
