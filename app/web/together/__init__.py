"""Playing together: daily deals, challenges and live races (pages, JSON, event streams)."""
