"""ldp: the shared package of the LDP-under-correlation compendium."""
__version__ = "0.1.0"
