"""The player's own pages and JSON: statistics, settings, privacy, devices, the data file."""
