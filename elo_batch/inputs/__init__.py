"""Reading and checking inputs: files, frames, encodings, games and the rating list; no rating rules."""
