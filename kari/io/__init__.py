"""Output helpers shared by every writer."""
