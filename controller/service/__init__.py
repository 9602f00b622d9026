"""The running board: camera -> vision -> tracking -> store -> leds -> web."""
