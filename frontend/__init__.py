"""Web front end: pages, health check and websocket consumers."""
