"""Camera readings -> plies: stability gate, move inference, takeback, resync. Pure logic, no I/O."""
