"""One router per resource: game, library, camera, leds, events, health, sim."""
