"""takboard: the service that sits beside a real Tak board (camera in, LEDs and web page out)."""

__version__ = "0.1.0"
