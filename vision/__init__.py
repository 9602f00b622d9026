"""Vision: camera sources, board localisation, rectification, square reading, simulated camera.

Does not import `controller`: it reports what it sees, it does not know the rules.
"""
