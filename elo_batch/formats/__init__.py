"""Importers of the field's file formats (PGN, TRF, FIDE's list download) into games and lists."""
