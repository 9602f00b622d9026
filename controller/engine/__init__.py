"""Hint search and the TEI engine protocol (client and server)."""
