"""`refuge insights`: a self-play corpus in SQLite and what it says about playing Refuge."""
