"""elo-batch: FIDE rating changes for whole populations of players at once."""

__version__ = "0.1.0"
