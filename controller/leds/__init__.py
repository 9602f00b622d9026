"""LED board: serial link client, LED frame model, scenes."""
