"""FastAPI app, WebSocket events, static page."""
